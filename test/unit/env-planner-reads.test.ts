// Only the planner reads the repository: everything an environment build needs of it is read by
// runtime/env/plan/ into the build spec, so the builder, the chooser and the run side derive
// nothing from the checkout themselves. Outside plan/, a file of runtime/env may copy the checkout
// into a box (the workspace's snapshotTar, which packs without reading meaning into it) but imports
// no reader of the repository, and no fs function but the ones its own host caches need (said why).
// Each language's planner reads: runtime/env/plan/ for Python, runtime/env/js/plan/ and js/read/ for
// JavaScript. The tree stays readable: no folder under runtime/env holds more than 15 files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const ENV = join(packageRoot(), 'runtime', 'env');

/** Modules that read a repository's files, its listing or its git. */
const REPO_READERS =
  /from '[^']*(host\/inside-repo|plan\/read\/repo-reader|host\/safe-git|host\/git|workspace\/repo-listing|workspace\/content-key|host\/open-regular)\.js'/;
/** What of the snapshot module may be used: the copy into a box. */
const SNAPSHOT_IMPORT = /import \{([^}]*)\} from '[^']*workspace\/snapshot\.js'/;

/** The planners: the only folders that read a repository. */
const PLANNERS = ['plan/', 'js/plan/', 'js/read/'];

/** Files outside plan/ that use the filesystem for the host's own state, not the repository. */
const HOST_STATE: Record<string, string> = {
  'build/apt-cache.ts': "the user's apt cache",
  'build/network/wheel-cache.ts': "the user's wheel cache",
  'floor/names.ts': "the repository's real path, for the image's name (no content read)",
  'js/toolchain/npm-registry.ts': "the user's npmrc (the registry and its token)",
  'js/toolchain/machine-tls.ts': "the machine's CA bundles",
  'js/toolchain/registry-download.ts': "piper's cache of the toolchain's tarballs",
  'js/build/registry-files.ts': "the user's NODE_EXTRA_CA_CERTS file, for the download box",
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

function dirs(dir: string): string[] {
  const subs = readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory());
  return [dir, ...subs.flatMap((n) => dirs(join(dir, n)))];
}

describe('runtime/env: only the planner reads the repository', () => {
  const outside = files(ENV).filter((f) => !PLANNERS.some((dir) => relative(ENV, f).startsWith(dir)));

  it('no module outside plan/ imports a reader of the repository', () => {
    const offenders = outside.filter((f) => REPO_READERS.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(ENV, f))).toEqual([]);
  });

  it('the snapshot module is used outside plan/ only to copy the checkout into a box', () => {
    const offenders = outside.flatMap((f) => {
      const names = SNAPSHOT_IMPORT.exec(readFileSync(f, 'utf8'))?.[1] ?? '';
      return names
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n && n !== 'snapshotTar' && !n.startsWith('type '))
        .map((n) => `${relative(ENV, f)}: ${n}`);
    });
    expect(offenders).toEqual([]);
  });

  it('node:fs outside plan/ only where the host keeps its own state', () => {
    const users = outside.filter((f) => /from 'node:fs'/.test(readFileSync(f, 'utf8')));
    expect(users.map((f) => relative(ENV, f)).sort()).toEqual(Object.keys(HOST_STATE).sort());
  });

  it('no folder holds more than 15 files', () => {
    const crowded = dirs(ENV)
      .map(
        (d) => [relative(packageRoot(), d), readdirSync(d).filter((n) => n.endsWith('.ts')).length] as const,
      )
      .filter(([, n]) => n > 15);
    expect(crowded).toEqual([]);
  });
});
