// `ledger show RUN --prompts [--turn N]`: exactly what the model saw, turn by turn — the messages
// and native tool specs the ledger kept (runtime/ledger/prompts.ts), each checked against the
// digest the turn recorded — and the reply it gave. The prompt holds untrusted text (the issue,
// files, sandbox output), so the text form goes through inert() like the rest of `ledger show`.
import { promptDigest } from '../../policy/prompt.js';
import type { Ledger } from '../../runtime/ledger/ledger.js';
import { loadPrompt, type StoredPrompt } from '../../runtime/ledger/prompts.js';
import { turnsOf } from '../../runtime/ledger/turns.js';
import { inert } from '../../runtime/text/inert.js';
import { CommandError } from './command-error.js';
import type { FoundRun } from './find-run.js';
import { loopTurns } from './loop-turns.js';
import { runDocument } from './run-document.js';

export interface TurnPrompt {
  /** The loop's turn number, as the run's events showed it. */
  turn: number;
  reselection: boolean;
  /** The turn row's index in the run. */
  idx: number;
  digest: string | null;
  /** Whether the kept prompt hashes to the recorded digest; null when no prompt was kept. */
  digest_matches: boolean | null;
  prompt: StoredPrompt | null;
  reply: string | null;
}

/** Every turn's prompt, or turn `only`'s (its re-selection included). */
export function runPrompts(ledger: Ledger, run: FoundRun, only?: number): TurnPrompt[] {
  const numbers = loopTurns(runDocument(ledger, run).turns);
  const rows = turnsOf(ledger, run.id);
  const out: TurnPrompt[] = [];
  rows.forEach((row, i) => {
    const n = numbers[i]!;
    if (only !== undefined && n.turn !== only) return;
    const prompt = loadPrompt(ledger, row.id);
    const digest = row.prompt_digest;
    out.push({
      turn: n.turn,
      reselection: n.reselection,
      idx: row.idx,
      digest,
      digest_matches: prompt ? promptDigest(prompt.messages, prompt.tools) === digest : null,
      prompt,
      reply: row.raw_output,
    });
  });
  if (only !== undefined && out.length === 0)
    throw new CommandError(
      `run ${run.id} has no turn ${only}`,
      `its turns are 1 to ${numbers.at(-1)?.turn ?? 0}`,
    );
  return out;
}

export function renderPrompts(run: FoundRun, turns: readonly TurnPrompt[]): string {
  const boundary = run.prompt_boundary ?? null;
  const lines = [
    `run ${run.id} · prompt boundary ${boundary ?? '(none: recorded before prompts were fenced)'}`,
  ];
  for (const t of turns) {
    const check =
      t.digest_matches === null
        ? 'no prompt kept (recorded before the ledger kept prompts)'
        : t.digest_matches
          ? 'the kept prompt matches this digest'
          : 'THE KEPT PROMPT DOES NOT MATCH THIS DIGEST';
    lines.push(
      '',
      `═══ turn ${t.turn}${t.reselection ? ' (re-selection)' : ''} · digest ${t.digest ?? '-'} · ${check}`,
    );
    for (const m of t.prompt?.messages ?? []) lines.push(`─── ${m.role}`, m.content);
    if (t.prompt?.tools)
      lines.push('─── tools (native function specs)', JSON.stringify(t.prompt.tools, null, 2));
    lines.push('─── reply', t.reply ?? '(none: the model call did not answer)');
  }
  return inert(lines.join('\n'));
}
