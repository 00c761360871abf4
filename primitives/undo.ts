// Undo of a run's edits (`piper-agent undo RUN`). All or nothing: every file is checked and its
// original computed before any is written; a file that changed after the run touched it stops
// the whole undo, named. Restoring = the stored diffs applied in reverse, each step verified
// against the sha256 the ledger recorded, so what comes back is byte-identical or nothing does.
import { realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { isWithin, readRepoFile } from '../runtime/host/inside-repo.js';
import { editsForRun, markUndone, type EditRow } from '../runtime/ledger/edits.js';
import type { Ledger } from '../runtime/ledger/ledger.js';
import { applyPatch } from './diff/apply-patch.js';
import { atomicWrite, sha256 } from './fs/atomic-write.js';
import type { EntityLookup, Envelope } from './types.js';
import { getRun } from '../runtime/ledger/runs.js';

export interface UndoOptions {
  repoRoot: string;
  ledger: Ledger;
  runId: string;
  /** When given, the restored files are re-indexed. */
  index?: EntityLookup;
}

export interface UndoResult {
  runId: string;
  /** The restored files (repo-relative) and how many edits of each were reversed. */
  files: Array<{ path: string; edits: number }>;
  undone: number;
}

interface Restoration {
  path: string;
  realPath: string;
  current: Buffer;
  original: Buffer;
  edits: EditRow[];
}

const refuse = (error: string): Envelope<UndoResult> => ({ ok: false, error, data: null });

export async function undoRun(options: UndoOptions): Promise<Envelope<UndoResult>> {
  const { ledger, runId } = options;
  if (!getRun(ledger, runId)) return refuse(`no run ${runId} in the ledger`);
  const edits = editsForRun(ledger, runId);
  if (edits.length === 0) return { ok: true, error: null, data: { runId, files: [], undone: 0 } };

  const byPath = new Map<string, EditRow[]>();
  for (const edit of edits) byPath.set(edit.path, [...(byPath.get(edit.path) ?? []), edit]);

  // Phase 1: check and compute everything; nothing is written yet.
  const plan: Restoration[] = [];
  for (const [path, fileEdits] of byPath) {
    const step = await planFile(options.repoRoot, runId, path, fileEdits);
    if ('error' in step) return refuse(`${step.error}; nothing was undone`);
    plan.push(step);
  }
  // Latest edit first: the run's edits are reversed in the opposite order to how they were made.
  plan.sort((a, b) => b.edits[b.edits.length - 1]!.id - a.edits[a.edits.length - 1]!.id);

  // Phase 2: write. Each write is atomic; if one fails, the files already written get their
  // current bytes back, so the repository is as before the undo.
  const written: Restoration[] = [];
  for (const file of plan) {
    try {
      await atomicWrite(file.realPath, file.original);
      written.push(file);
    } catch (error) {
      const rollback = await rollBack(written);
      return refuse(`cannot write ${file.path}: ${(error as Error).message}; ${rollback}`);
    }
  }

  // Phase 3: the ledger says so. If it cannot, the files go back to their edited state, so the
  // ledger and the disk keep agreeing (and a later undo can try again).
  try {
    markUndone(
      ledger,
      [...edits].reverse().map((edit) => edit.id),
    );
  } catch (error) {
    const rollback = await rollBack(written);
    return refuse(`the ledger could not mark the edits undone (${(error as Error).message}); ${rollback}`);
  }
  const paths = plan.map((file) => file.path);
  // The files are right either way; an index that cannot re-read them now re-reads them later.
  const index = options.index;
  if (index)
    await Promise.resolve()
      .then(() => index.refresh(paths))
      .catch(() => {});
  return {
    ok: true,
    error: null,
    data: { runId, files: plan.map((f) => ({ path: f.path, edits: f.edits.length })), undone: edits.length },
  };
}

/** One file: the current bytes must be what the run's last edit left; then reverse its edits. */
async function planFile(
  repoRoot: string,
  runId: string,
  path: string,
  edits: EditRow[],
): Promise<Restoration | { error: string }> {
  // The ledger is a file anyone with the repository could have altered: a row naming `../x` or an
  // absolute path (or a path whose links lead out) must not make undo write outside the repository.
  const outside = `edit ${edits[0]!.id} of run ${runId} names ${JSON.stringify(path)}, which is outside the repository ${repoRoot}; undo restores files inside the current repository only`;
  if (path === '' || isAbsolute(path) || path.split(/[/\\]/).includes('..')) return { error: outside };
  let realPath: string;
  let current: Buffer;
  try {
    const realRoot = await realpath(repoRoot);
    realPath = await realpath(resolve(realRoot, path));
    if (!isWithin(realRoot, realPath) || realPath === realRoot) return { error: outside };
    const bytes = readRepoFile(realRoot, path);
    if (!Buffer.isBuffer(bytes)) return { error: bytes.error };
    current = bytes;
  } catch (error) {
    return { error: `cannot read ${path}: ${(error as Error).message}` };
  }
  const last = edits[edits.length - 1]!;
  const now = sha256(current);
  if (now !== last.after_sha256) {
    return {
      error: `${path} changed after run ${runId} edited it (sha256 ${short(now)}, the run left ${short(last.after_sha256)})`,
    };
  }
  let text = current.toString('utf8');
  for (const edit of [...edits].reverse()) {
    if (sha256(text) !== edit.after_sha256) {
      return {
        error: `${path}: the edits of run ${runId} do not chain (edit ${edit.id} did not leave this content)`,
      };
    }
    const reversed = applyPatch(text, edit.diff, { reverse: true });
    if (!reversed.ok)
      return { error: `${path}: the diff of edit ${edit.id} does not reverse (${reversed.reason})` };
    if (sha256(reversed.text) !== edit.before_sha256) {
      return { error: `${path}: reversing edit ${edit.id} does not give back the recorded original` };
    }
    text = reversed.text;
  }
  return { path, realPath, current, original: Buffer.from(text, 'utf8'), edits };
}

async function rollBack(written: Restoration[]): Promise<string> {
  const failed: string[] = [];
  for (const file of written.reverse()) {
    await atomicWrite(file.realPath, file.current).catch(() => failed.push(file.path));
  }
  return failed.length === 0
    ? 'nothing was undone'
    : `and putting back ${failed.join(', ')} failed: those files hold their pre-run content, the ledger does not say so`;
}

const short = (hash: string) => hash.slice(0, 12);
