// Wheel directories as the build spec lists them (plan/build-facts.ts: the repository's by content,
// the user's by name, size and mtime), copied into a box: exactly the listed `.whl` files, nothing
// else of the directory. A source archive there would be built by pip, and only an index the user
// named may have its code built in a step with a network.
import { snapshotTar } from '../../workspace/snapshot.js';
import type { BuildBox } from './build-box.js';
import type { WheelDir } from '../plan/build-facts.js';
import { normalize } from './step-output.js';

export const WHEELHOUSE = '/opt/piper/wheelhouse';

/** The distribution a wheel's file name holds, normalized. */
function distOf(file: string): string {
  return normalize(file.split('-')[0] ?? '');
}

/** Normalized names of the distributions the listed wheel directories hold. */
export function wheelNames(dirs: WheelDir[]): Set<string> {
  return new Set(dirs.flatMap((d) => d.wheels.map((w) => distOf(w.file))));
}

/** Copies each directory's listed wheels (only those of `only`, when given); their paths in the box. */
export async function putWheelDirs(box: BuildBox, dirs: WheelDir[], only?: Set<string>): Promise<string[]> {
  const inside: string[] = [];
  if (!dirs.length) return inside;
  await box.run({
    name: 'wheelhouse dirs',
    script: `mkdir -p ${dirs.map((_, i) => `${WHEELHOUSE}/${i}`).join(' ')}`,
    timeoutS: 30,
  });
  for (const [i, dir] of dirs.entries()) {
    const entries = dir.wheels
      .filter((w) => !only || only.has(distOf(w.file)))
      .map((w) => ({ path: w.file, kind: 'file' as const, size: w.size }));
    const bytes = entries.reduce((sum, e) => sum + e.size, 0);
    await box.put(`${WHEELHOUSE}/${i}`, snapshotTar({ root: dir.dir, entries, skipped: [], bytes }).tar);
    inside.push(`${WHEELHOUSE}/${i}`);
  }
  return inside;
}
