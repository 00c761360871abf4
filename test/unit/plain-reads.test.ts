// Every read of what a repository brings goes through the one bounded reader
// (runtime/host/inside-repo.ts readRepoFile, runtime/host/open-regular.ts readRegularFile): regular
// files only, never blocking, under a size cap. This test fails when a plain read appears anywhere
// else in the product's source; the files below read only what is not the repository's, each said why.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const ALLOWED: Record<string, string> = {
  'runtime/host/open-regular.ts': 'the bounded reader itself',
  'runtime/host/repo-lock.ts': "piper's own lock file, opened O_NOFOLLOW and written by piper",
  'runtime/host/own-runs.ts': "the user's state directory",
  'runtime/images/built-images.ts': "the user's state directory",
  'runtime/images/recipe.ts': "piper's packaged image recipe",
  'runtime/images/ci-context.ts': "piper's own package files",
  'runtime/images/ci-image.ts': "piper's own package.json",
  'runtime/images/pack-dir.ts': "piper's packaged image context (lstat-checked regular files)",
  'runtime/images/build.ts': 'the rootfs tar piper built',
  'runtime/engine/bootstrap.ts': "the engine's log and pid file",
  'runtime/engine/podman-bootstrap.ts': 'the host: /etc/passwd, /etc/subuid',
  'runtime/sandbox/owner.ts': '/proc',
  'runtime/env/plan/infer/stdlib.ts': "piper's packaged data",
  'runtime/env/plan/debian-names.ts': "piper's packaged data",
  'runtime/env/plan/pip-config.ts': "the user's pip configuration",
  'runtime/env/build/apt-cache.ts': "the user's apt cache",
  'runtime/host/build-lock.ts': "piper's own build lock files in the user's cache",
  'runtime/env/build/network/wheel-cache.ts':
    "piper's wheel cache in the user's cache (entries checked against their sha256)",
  'primitives/fs/atomic-write.ts': 'opens the temporary file it writes; its one read goes through the reader',
  'core/command-line/entry-point.ts': "piper's package.json",
  'core/config.ts': "the user's own config file (the repository's goes through the reader)",
  'core/repo-config-trust/trust-store.ts': "the user's own config file",
  'cli/fix/issue-text.ts': 'the issue file the user names, or stdin',
  'cli/commands/execute.ts': 'the code file the user names, or stdin',
  'cli/commands/demo.ts': "piper's packaged demo issue",
  'cli/ledger/run-export.ts': 'the export file the user names',
  'runtime/env/js/build/registry-files.ts': "the user's npm configuration and CA files",
  'runtime/env/js/toolchain/machine-tls.ts': "the machine's CA bundles",
  'runtime/env/js/toolchain/npm-registry.ts': "the user's npmrc",
  'runtime/env/js/toolchain/registry-download.ts':
    "piper's tarball cache in the user's cache (entries checked against their sha512)",
  'runtime/test-output/js/report-frame.ts': 'none on the host: the text of a script run in the sandbox',
};

const READS = 'readFileSync|readFile|createReadStream|openSync|open';
// A read function imported from node's fs (named, or as a namespace used with it): what the name
// means, not how it is spelled at a call, so an alias or a method of the same name changes nothing.
const NAMED_IMPORT = new RegExp(
  `import\\s*\\{[^}]*\\b(${READS})\\b[^}]*\\}\\s*from\\s*'(node:)?fs(/promises)?'`,
);
const NAMESPACE_USE = new RegExp(`\\b(fs|fsp|promises)\\.(${READS})\\s*\\(`);
const DIRS = ['cli', 'core', 'policy', 'primitives', 'runtime'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('plain reads of repository files', () => {
  const root = packageRoot();
  const offenders = DIRS.flatMap((d) => sources(join(root, d)))
    .map((file) => ({ file: relative(root, file), text: readFileSync(file, 'utf8') }))
    .filter(({ text }) => NAMED_IMPORT.test(text) || NAMESPACE_USE.test(text));

  it('appear only in the files that read what is not the repository', () => {
    expect(offenders.map((o) => o.file).filter((f) => !(f in ALLOWED))).toEqual([]);
  });

  it('the allow-list names no file that no longer reads (it cannot hide a new one)', () => {
    const reading = new Set(offenders.map((o) => o.file));
    expect(Object.keys(ALLOWED).filter((f) => !reading.has(f))).toEqual([]);
  });
});
