// The machine's wheel cache (network/wheel-cache.ts) for a locked closure: a wheel kept under one
// of a package's locked sha256 hashes is put into the locked download directory before pip runs,
// where pip takes it as already downloaded once it matches the hash (--require-hashes), so a new
// key with the same lock downloads nothing again; the wheels pip did download are kept after.
import type { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { sourcesFingerprint } from '../network/wheel-cache.js';
import { packAbsolute, readTar } from '../tar-files.js';
import type { LockedClosure } from '../../plan/types.js';
import { LOCKED } from './locked-steps.js';

/** The cached wheels of the closure's hashes put into LOCKED; their file names. */
export async function offerLockedWheels(
  ctx: BuildContext,
  net: BuildBox,
  locked: LockedClosure,
): Promise<Set<string>> {
  const offered = new Set<string>();
  if (!ctx.wheels) return offered;
  const wheels = locked.packages.flatMap((p) => p.hashes.flatMap((hex) => ctx.wheels?.byHash(hex) ?? []));
  if (!wheels.length) return offered;
  for (const w of wheels) offered.add(w.file);
  await net.put(
    '/',
    packAbsolute(wheels.map((w) => ({ path: `${LOCKED}/${w.file}`, data: w.data, mode: 0o644 }))),
  );
  return offered;
}

/** The wheels pip downloaded (not those the cache offered) kept in the cache; how many. */
export async function keepLockedWheels(
  ctx: BuildContext,
  tar: Buffer,
  offered: Set<string>,
): Promise<number> {
  if (!ctx.wheels) return 0;
  const fp = sourcesFingerprint(ctx.input.pip);
  let kept = 0;
  try {
    for (const f of await readTar(tar)) {
      const file = f.name.split('/').at(-1) ?? '';
      if (f.type === 'file' && !offered.has(file) && ctx.wheels.store(fp, file, f.data)) kept++;
    }
  } catch {
    // A cache that cannot be written costs the next build a download, nothing more.
  }
  return kept;
}
