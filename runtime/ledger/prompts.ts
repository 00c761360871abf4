// The prompts the model saw, kept in the ledger so that a person (and `ledger show --prompts`) can
// read exactly what each turn sent: its messages and, under native function calling, its tool
// specs. A prompt repeats itself from turn to turn (the system message, the tool list, the issue),
// so each message is cut into parts at the prompt's own section starts, and each part is stored
// once, gzipped, under its sha256; a turn row lists the hashes it is made of. Reassembled, the
// parts give back the exact text, so the turn's recorded digest can be checked against them.
import { createHash, randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { RuntimeError } from '../errors.js';
import type { ChatMessage, ToolSpec } from '../model/types.js';
import type { Ledger } from './ledger.js';

/**
 * A run's prompt boundary: 128 random bits as 32 hex digits, chosen when the run is created and
 * kept on its row (policy/fence.ts says what it marks).
 */
export function newPromptBoundary(): string {
  return randomBytes(16).toString('hex');
}

/** What one turn sent to the model. */
export interface StoredPrompt {
  messages: ChatMessage[];
  tools: ToolSpec[] | null;
}

/** A turn row's `prompt` column: the hashes of each message's parts, in order. */
interface PromptIndex {
  messages: Array<{ role: ChatMessage['role']; parts: string[] }>;
  tools: string | null;
}

// Cut before a blank line that opens a section of the selection prompt (`# Tools`, `# State`,
// `# Issue`) or its latest observation: the parts that repeat from turn to turn then hash alike.
// Where the cuts fall changes only how much is shared, never the text put back together.
const PART_START = /(?=\n\n(?:# |Latest observation))/;

export function promptParts(content: string): string[] {
  return content === '' ? [''] : content.split(PART_START);
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Stores a turn's prompt: new parts once, the turn's list of hashes on its row. */
export function storePrompt(ledger: Ledger, turnId: number, prompt: StoredPrompt): void {
  const db = ledger.database;
  const insert = db.prepare(`INSERT OR IGNORE INTO prompt_parts (sha256, bytes, body) VALUES (?, ?, ?)`);
  const put = (text: string): string => {
    const hash = sha256(text);
    insert.run(hash, Buffer.byteLength(text, 'utf8'), gzipSync(Buffer.from(text, 'utf8')));
    return hash;
  };
  db.transaction(() => {
    const index: PromptIndex = {
      messages: prompt.messages.map((m) => ({ role: m.role, parts: promptParts(m.content).map(put) })),
      tools: prompt.tools === null ? null : put(JSON.stringify(prompt.tools)),
    };
    db.prepare(`UPDATE turns SET prompt = ? WHERE id = ?`).run(JSON.stringify(index), turnId);
  })();
}

/**
 * A turn's prompt put back together; null when the turn kept none (a run recorded before prompts
 * were kept). A missing or altered part is a `ledger_error`, never a silently different prompt.
 */
export function loadPrompt(ledger: Ledger, turnId: number): StoredPrompt | null {
  const row = ledger.database.prepare(`SELECT prompt FROM turns WHERE id = ?`).get(turnId) as
    { prompt: string | null } | undefined;
  if (!row?.prompt) return null;
  const index = JSON.parse(row.prompt) as PromptIndex;
  const select = ledger.database.prepare(`SELECT body FROM prompt_parts WHERE sha256 = ?`);
  const get = (hash: string): string => {
    const part = select.get(hash) as { body: Buffer } | undefined;
    if (!part) throw new RuntimeError('ledger_error', `prompt part ${hash} of turn row ${turnId} is missing`);
    const text = gunzipSync(part.body).toString('utf8');
    if (sha256(text) !== hash)
      throw new RuntimeError(
        'ledger_error',
        `prompt part ${hash} of turn row ${turnId} does not match its hash`,
      );
    return text;
  };
  return {
    messages: index.messages.map((m) => ({ role: m.role, content: m.parts.map(get).join('') })),
    tools: index.tools === null ? null : (JSON.parse(get(index.tools)) as ToolSpec[]),
  };
}

/** How much the run's prompts take: as sent (every turn in full) and as stored (parts, gzipped). */
export function promptStorage(
  ledger: Ledger,
  runId: string,
): { turns: number; sentBytes: number; storedBytes: number } {
  const turns = ledger.database
    .prepare(`SELECT prompt FROM turns WHERE run_id = ? AND prompt IS NOT NULL`)
    .all(runId) as Array<{ prompt: string }>;
  const sizes = ledger.database.prepare(
    `SELECT bytes, length(body) AS stored FROM prompt_parts WHERE sha256 = ?`,
  );
  let sentBytes = 0;
  const distinct = new Map<string, number>();
  for (const t of turns) {
    const index = JSON.parse(t.prompt) as PromptIndex;
    const hashes = [...index.messages.flatMap((m) => m.parts), ...(index.tools ? [index.tools] : [])];
    for (const hash of hashes) {
      const size = sizes.get(hash) as { bytes: number; stored: number } | undefined;
      sentBytes += size?.bytes ?? 0;
      distinct.set(hash, size?.stored ?? 0);
    }
  }
  const storedBytes =
    [...distinct.values()].reduce((a, b) => a + b, 0) + turns.reduce((a, t) => a + t.prompt.length, 0);
  return { turns: turns.length, sentBytes, storedBytes };
}
