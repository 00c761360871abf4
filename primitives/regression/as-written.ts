// The run's final tree with its test side put back: the snapshot the repro is judged on when a run
// edited test-side files (test-side.ts). Each such file's base content comes from the run's own
// edit records, reversed from the final content one by one and checked against the sha256 the
// first edit recorded, so it is byte for byte what the base had or nothing is claimed.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { applyPatch } from '../diff/apply-patch.js';
import type { KeptSnapshot } from './suite-snapshot.js';

export interface TestSideEdit {
  path: string;
  before_sha256: string;
  diff: string;
}

/**
 * Each edited path's content before the run, from its final content and the run's edits of it (in
 * the order they were made); or why it cannot be had.
 */
export function baseContents(
  final: ReadonlyMap<string, Buffer>,
  edits: readonly TestSideEdit[],
): Map<string, Buffer> | { error: string } {
  const byPath = new Map<string, TestSideEdit[]>();
  for (const e of edits) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  const out = new Map<string, Buffer>();
  for (const [path, list] of byPath) {
    let text = (final.get(path) ?? Buffer.alloc(0)).toString('utf8');
    for (const edit of [...list].reverse()) {
      const undone = applyPatch(text, edit.diff, { reverse: true });
      if (!undone.ok) return { error: `${path}: the run's edit does not reverse (${undone.reason})` };
      text = undone.text;
    }
    const bytes = Buffer.from(text, 'utf8');
    if (sha256(bytes) !== list[0]!.before_sha256)
      return {
        error: `${path}: the reversed content does not match the sha256 recorded before the run's first edit`,
      };
    out.set(path, bytes);
  }
  return out;
}

/** The files of a kept snapshot's tar, by path: the final content of the paths asked for. */
export async function filesOf(
  snapshot: KeptSnapshot,
  paths: ReadonlySet<string>,
): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const extract = tar.extract();
  Readable.from([snapshot.tar]).pipe(extract);
  for await (const entry of extract) {
    const name = entry.header.name.replace(/^\.\//, '');
    if (entry.header.type === 'file' && paths.has(name)) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      out.set(name, Buffer.concat(chunks));
    } else entry.resume();
  }
  return out;
}

/** The kept snapshot with each path in `restore` holding the given content (added if absent). */
export async function withContents(
  snapshot: KeptSnapshot,
  restore: ReadonlyMap<string, Buffer>,
): Promise<KeptSnapshot> {
  const pack = tar.pack();
  const extract = tar.extract();
  Readable.from([snapshot.tar]).pipe(extract);
  const left = new Map(restore);
  const chunks: Buffer[] = [];
  pack.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    pack.on('end', resolve);
    pack.on('error', reject);
  });
  for await (const entry of extract) {
    const name = entry.header.name.replace(/^\.\//, '');
    const body: Buffer[] = [];
    for await (const chunk of entry) body.push(chunk as Buffer);
    const replaced = left.get(name);
    left.delete(name);
    const content = replaced ?? Buffer.concat(body);
    pack.entry({ ...entry.header, size: entry.header.type === 'file' ? content.length : 0 }, content);
  }
  // A test-side file the run deleted: back as the base had it.
  for (const [name, content] of left) pack.entry({ name, mode: 0o644, size: content.length }, content);
  pack.finalize();
  await ended;
  const packed = Buffer.concat(chunks);
  return {
    ...snapshot,
    tar: packed,
    tarKey: sha256(packed),
    files: [...new Set([...snapshot.files, ...left.keys()])],
  };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
