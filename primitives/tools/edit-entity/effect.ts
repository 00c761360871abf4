// edit_entity: replace one exact string inside one entity, but only if the lint
// gate finds nothing new in the resulting file; then write atomically, record the edit for undo,
// and refresh the code index. Every failure is an envelope, and a refused edit leaves the file
// byte-identical.
import { realpath } from 'node:fs/promises';
import { readRepoFile } from '../../../runtime/host/inside-repo.js';
import { isAbsolute, relative, resolve } from 'node:path';
import { recordEdit } from '../../../runtime/ledger/edits.js';
import type { Ledger } from '../../../runtime/ledger/ledger.js';
import { unifiedDiff } from '../../diff/unified-diff.js';
import { deniedMessage, type EditAuthorizer } from '../../edit-approval.js';
import { atomicWrite, FileChangedError, sha256, type AtomicWriteOptions } from '../../fs/atomic-write.js';
import { addedDiagnostics, describeDiagnostic, type Diagnostic } from '../../lint/diagnostic.js';
import type { LintGate } from '../../lint/lint-gate.js';
import type { EditResult } from '../../results/edit-result.js';
import type { Entity, EntityLookup, Envelope } from '../../types.js';

/** The registry's caps (docs/policy.md, "The tool registry"), in code points as Python's len(). */
const EDIT_CAPS = { search: 400, replace: 2000 } as const;

export interface EditContext {
  repoRoot: string;
  index: EntityLookup;
  /** With `runId`, every committed edit is recorded so `piper-agent undo` can reverse it. */
  ledger?: Ledger;
  runId?: string;
  callId?: string;
  lint: LintGate;
  /**
   * The authorization stage: asked after the lint gate passed and before anything is written.
   * Absent: every edit that passes the gate is written (the library's and the tests' default).
   */
  authorize?: EditAuthorizer;
  /** Test hook: runs between the new content's write and the compare-and-swap check. */
  beforeSwap?: AtomicWriteOptions['beforeSwap'];
  /**
   * The run was stopped (an interrupt): an edit not written yet is not written, and one written
   * meanwhile is put back, unrecorded; the file keeps the bytes it had when the run stopped.
   */
  signal?: AbortSignal;
}

export interface EditArgs {
  selector: string;
  search: string;
  replace: string;
}

const fail = (error: string, data: EditResult | null = null): Envelope<EditResult> => ({
  ok: false,
  error,
  data,
});

type Refusal = Envelope<EditResult>;
const refused = <T extends object>(x: T | Refusal): x is Refusal => 'ok' in x;

export async function editEntity(ctx: EditContext, args: EditArgs): Promise<Envelope<EditResult>> {
  const { search, replace } = args;
  // The import form names the entity too; the edit is recorded under the selector the index has.
  const selector = ctx.index.resolve(args.selector) ?? args.selector;
  const badArgs = checkArgs(selector, search, replace);
  if (badArgs) return badArgs;
  const entity = await currentEntity(ctx.index, selector);
  if (refused(entity)) return entity;

  const file = await openEntityFile(ctx.repoRoot, entity);
  if ('error' in file) return fail(file.error);
  const { realPath, before, beforeText } = file;

  const edit = replaceOnce(entity, before, selector, search, replace);
  if (refused(edit)) return edit;
  const { at, after, replacement } = edit;
  const afterText = after.toString('utf8');
  const diff = unifiedDiff(entity.path, beforeText, afterText);

  const verdict = await gate(ctx.lint, diff, {
    path: entity.path,
    beforeText,
    afterText,
    after,
    at,
    written: replacement.length,
  });
  if (refused(verdict)) return verdict;
  const lintNote = verdict.note ? { lint_note: verdict.note } : {};

  const denied = await askAuthorization(ctx, entity.path, selector, diff, verdict.clean);
  if (denied) return denied;
  const unwritten = await writeEdit(ctx, realPath, entity.path, before, after);
  if (unwritten) return unwritten;
  const unrecorded = await recordForUndo(ctx, { realPath, path: entity.path, selector, before, after, diff });
  if (unrecorded) return unrecorded;
  const indexNote = await refreshIndex(ctx.index, entity.path).then(
    () => ({}),
    (error: Error) => ({ index_note: `the code index could not re-read ${entity.path}: ${error.message}` }),
  );
  return {
    ok: true,
    error: null,
    data: { committed: true, lint_clean: verdict.clean, diff, ...lintNote, ...indexNote },
  };
}

/** The search string must be given, and both strings within the registry's caps. */
function checkArgs(selector: string, search: string, replace: string): Refusal | null {
  if (search === '') return fail(`search string is empty; give the exact text to replace in ${selector}`);
  if ([...search].length > EDIT_CAPS.search) {
    return fail(`search string is longer than ${EDIT_CAPS.search} characters (${[...search].length})`);
  }
  if ([...replace].length > EDIT_CAPS.replace) {
    return fail(`replace string is longer than ${EDIT_CAPS.replace} characters (${[...replace].length})`);
  }
  return null;
}

/** The entity as its file is now. */
async function currentEntity(index: EntityLookup, selector: string): Promise<Entity | Refusal> {
  const known = index.get(selector);
  if (!known) return fail(`unknown selector ${selector}`);
  // The span must describe the bytes on disk now: if the file changed since it was indexed
  // (an editor, git), re-reading it first moves the span with it. Unchanged = a read and a hash.
  await refreshIndex(index, known.path).catch(() => {});
  const entity = index.get(selector);
  if (!entity) return fail(`unknown selector ${selector} (it is gone from ${known.path})`);
  return entity;
}

/** The file's new bytes: the search string, found exactly once inside the entity's span, replaced. */
function replaceOnce(
  entity: Entity,
  before: Buffer,
  selector: string,
  search: string,
  replace: string,
): { at: number; after: Buffer; replacement: Buffer } | Refusal {
  const span = before.subarray(entity.startByte, entity.endByte);
  const needle = Buffer.from(search, 'utf8');
  const hits = occurrences(span, needle);
  if (hits.length === 0) return fail(`search string not found in ${selector}`);
  if (hits.length > 1) return fail(`search string found ${hits.length} times in ${selector}; make it unique`);

  const at = entity.startByte + hits[0]!;
  const replacement = Buffer.from(replace, 'utf8');
  const after = Buffer.concat([before.subarray(0, at), replacement, before.subarray(at + needle.length)]);
  if (after.equals(before))
    return fail(`the edit changes nothing in ${selector}: search and replace are equal`);
  return { at, after, replacement };
}

/** The lint gate's verdict; an edit that adds a diagnostic, or that the gate could not check, is refused. */
async function gate(
  lint: LintGate,
  diff: string,
  edit: Parameters<typeof lintEdit>[1],
): Promise<Awaited<ReturnType<typeof lintEdit>> | Refusal> {
  let verdict: Awaited<ReturnType<typeof lintEdit>>;
  try {
    verdict = await lintEdit(lint, edit);
  } catch (error) {
    return fail(`the lint gate could not check the edit (${(error as Error).message}); nothing was written`);
  }
  const lintNote = verdict.note ? { lint_note: verdict.note } : {};
  if (verdict.added.length > 0) {
    const list = verdict.added.map(describeDiagnostic).join(', ');
    return fail(`edit refused by the lint gate: ${verdict.added.length} new diagnostic(s): ${list}`, {
      committed: false,
      lint_clean: false,
      diff,
      new_diagnostics: verdict.added,
      ...lintNote,
    });
  }
  return verdict;
}

/** The authorization stage, when there is one: a denied edit is refused. */
async function askAuthorization(
  ctx: EditContext,
  path: string,
  selector: string,
  diff: string,
  lintClean: boolean,
): Promise<Refusal | null> {
  if (!ctx.authorize) return null;
  const decision = await ctx.authorize({ callId: ctx.callId ?? '', path, selector, diff });
  if (decision.approved) return null;
  const denied = { by: decision.by, reason: decision.reason };
  return fail(deniedMessage(denied), { committed: false, lint_clean: lintClean, diff, denied });
}

/** Writes the new bytes if the file still has the old ones; a stop during the write puts the old ones back. */
async function writeEdit(
  ctx: EditContext,
  realPath: string,
  path: string,
  before: Buffer,
  after: Buffer,
): Promise<Refusal | null> {
  try {
    // Compare-and-swap: the lint gate (and the user's decision) took time, and the file may have changed meanwhile (an
    // editor, another process). Written only if it still has the bytes this edit was made from.
    await atomicWrite(realPath, after, {
      expectSha256: sha256(before),
      beforeSwap: ctx.beforeSwap,
      signal: ctx.signal,
    });
  } catch (error) {
    if (error instanceof FileChangedError)
      return fail(`precondition failed: ${path} changed on disk since it was read`);
    if (ctx.signal?.aborted) return fail(`edit not written: the run was stopped; the file is unchanged`);
    return fail(`cannot write ${path}: ${(error as Error).message}; the file is unchanged`);
  }
  // Stopped while the new bytes were being renamed into place: they are put back, unrecorded, so
  // the file has the bytes it had when the run stopped (the stop marks the call, outcome unknown).
  if (ctx.signal?.aborted) {
    const restored = await atomicWrite(realPath, before).then(
      () => 'the file is unchanged',
      (undoError: Error) => `and restoring ${path} failed: ${undoError.message}`,
    );
    return fail(`edit not committed: the run was stopped while it was written; ${restored}`);
  }
  return null;
}

/** Records the written edit in the ledger (with a run) so `undo` can reverse it. */
async function recordForUndo(
  ctx: EditContext,
  edit: { realPath: string; path: string; selector: string; before: Buffer; after: Buffer; diff: string },
): Promise<Refusal | null> {
  if (!ctx.ledger || !ctx.runId) return null;
  const { realPath, path, selector, before, after, diff } = edit;
  try {
    recordEdit(ctx.ledger, {
      runId: ctx.runId,
      callId: ctx.callId,
      path,
      selector,
      beforeSha256: sha256(before),
      afterSha256: sha256(after),
      diff,
    });
  } catch (error) {
    // An edit that cannot be undone is not committed: put the old bytes back.
    const restored = await atomicWrite(realPath, before).then(
      () => 'the file is unchanged',
      (undoError: Error) => `and restoring ${path} failed too: ${undoError.message}`,
    );
    return fail(
      `edit not committed: the ledger could not record it (${(error as Error).message}); ${restored}`,
    );
  }
  return null;
}

type EntityFile = { realPath: string; before: Buffer; beforeText: string } | { error: string };

/** Reads the entity's file, refusing paths that leave the repo and content that is not UTF-8 text. */
async function openEntityFile(repoRoot: string, entity: Entity): Promise<EntityFile> {
  const inside = (root: string, path: string) => {
    const rel = relative(root, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  let realPath: string;
  let before: Buffer;
  try {
    // The real path: renaming over a symlink would replace the link, not the file it names.
    realPath = await realpath(resolve(repoRoot, entity.path));
    if (!inside(await realpath(repoRoot), realPath))
      return { error: `${entity.path} lies outside the repository` };
    const bytes = readRepoFile(await realpath(repoRoot), entity.path);
    if (!Buffer.isBuffer(bytes)) return { error: bytes.error };
    before = bytes;
  } catch (error) {
    return { error: `cannot read ${entity.path}: ${(error as Error).message}` };
  }
  if (entity.startByte < 0 || entity.endByte > before.length || entity.startByte > entity.endByte) {
    return {
      error: `the code index is out of date for ${entity.path} (the file changed since it was indexed)`,
    };
  }
  try {
    // fatal: refuse rather than silently turn bytes into U+FFFD; ignoreBOM: keep a BOM as it is.
    const beforeText = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(before);
    return { realPath, before, beforeText };
  } catch {
    return { error: `${entity.path} is not valid UTF-8; edit_entity edits text files only` };
  }
}

/** Every start offset of `needle` in `haystack`, overlapping ones included (both make it ambiguous). */
function occurrences(haystack: Buffer, needle: Buffer): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) found.push(i);
  return found;
}

/** The index re-reads one file; a lookup that throws instead of rejecting is caught the same way. */
function refreshIndex(index: EntityLookup, path: string): Promise<void> {
  return Promise.resolve().then(() => index.refresh([path]));
}

interface ProposedEdit {
  path: string;
  beforeText: string;
  afterText: string;
  after: Buffer;
  /** Byte offset of the replacement in `after`, and its length in bytes. */
  at: number;
  written: number;
}

/** Lints before and after; `added` = what the edit introduces, `clean` = the result has nothing. */
async function lintEdit(
  gate: LintGate,
  edit: ProposedEdit,
): Promise<{ added: Diagnostic[]; clean: boolean; note?: string }> {
  const [old, next] = await Promise.all([
    gate.check(edit.beforeText, edit.path),
    gate.check(edit.afterText, edit.path),
  ]);
  const lineAt = (offset: number) => {
    let line = 1;
    for (let i = edit.after.indexOf(10); i >= 0 && i < offset; i = edit.after.indexOf(10, i + 1)) line++;
    return line;
  };
  // The lines the replacement occupies in the new content (one line when it is empty).
  const changed = { start: lineAt(edit.at), end: lineAt(Math.max(edit.at, edit.at + edit.written - 1)) };
  return {
    added: addedDiagnostics(old.diagnostics, next.diagnostics, changed),
    clean: next.diagnostics.length === 0,
    note: next.compileCheck.ran ? undefined : next.compileCheck.reason,
  };
}
