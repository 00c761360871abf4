// The fix runs piper started on this machine. A ledger is a file, and one named with --ledger can
// come from elsewhere (another machine's, a copy): a run in it names an image, a model script, an
// approval mode and caps that nobody here chose. `resume` takes those from a run only when this
// machine recorded starting it with exactly those settings; the record is a fingerprint per run (a sha256 of the run's id and
// settings, so a ledger that copies a known run id with other settings is still someone else's),
// one line each in the user's state directory, never in a repository.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../images/built-images.js';

/** What a run's row says about the settings `resume` would take from it. */
export interface RunSettings {
  id: string;
  model: string | null;
  config: Record<string, unknown>;
}

const SETTINGS = ['image', 'approval', 'maxTurns', 'maxTokens', 'maxCostUsd', 'maxWallS', 'sampling'];

function ownRunsPath(): string {
  return join(stateDir(), 'own-runs.txt');
}

function runFingerprint(run: RunSettings): string {
  const settings = SETTINGS.map((key) => [key, run.config[key] ?? null]);
  return createHash('sha256')
    .update(JSON.stringify([run.id, run.model, settings]))
    .digest('hex');
}

/** Records a run this process started. A state directory that cannot be written only costs trust. */
export function recordOwnRun(run: RunSettings): void {
  try {
    mkdirSync(stateDir(), { recursive: true });
    appendFileSync(ownRunsPath(), `${runFingerprint(run)}\n`, { mode: 0o600 });
  } catch {
    // Without the record, a resume of this run treats it as a ledger from elsewhere: safe, stricter.
  }
}

/** Whether this machine recorded starting this run with these settings. */
export function isOwnRun(run: RunSettings): boolean {
  let text: string;
  try {
    text = readFileSync(ownRunsPath(), 'utf8');
  } catch {
    return false;
  }
  const fingerprint = runFingerprint(run);
  return text.split('\n').includes(fingerprint);
}
