// Projects with compiled parts through the real CLI and engine (what a compiler changes shows only in
// a real build): a C extension that is the
// only implementation builds in the build step with a compiler the environment does not keep, and
// its module is found at /opt/piper/built while the package comes from /work; an extension that
// cannot build leaves its pure-Python fallback in charge, and the record says so.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { packageRoot } from '../../runtime/package-root.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-native-');
afterAll(() => repos.cleanup(engine));
const fixture = (name: string) => join(packageRoot(), 'test', 'fixtures', 'env-projects', name);

interface Result {
  passed: boolean;
  counts: { passed: number; failed: number; errors: number; skipped: number };
}

describe('a C extension with no pure-Python fallback', () => {
  it('builds it, runs the suite against it, and leaves no compiler in the environment', async () => {
    const repo = repos.newRepo('native-ext', {}, fixture('native-ext'));
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect((JSON.parse(r.stdout) as Result).counts).toMatchObject({ passed: 4, failed: 0, errors: 0 });
    expect(r.stderr).toContain('compiled parts (setup.py: ext_modules)');
    const [row] = envRows(repo);
    const sources = JSON.parse(row!.sources) as string[];
    expect(sources.find((s) => s.startsWith('build tools:'))).toMatch(
      /gcc .*python3-dev \(\d+ MB, in the build step only\)/,
    );
    expect(sources).toContain('native: built fastsum._csum (setup.py: ext_modules)');
    // execute sees the same module, and the same absence of a compiler.
    const code =
      'import fastsum, fastsum._csum as c, shutil; print(fastsum.total([2, 3]), c.__file__, shutil.which("gcc"))';
    const e = await runCli(['execute', '--repo', repo, '--code', code, '--json'], { env: NO_PIP });
    expect(e.code, e.stderr).toBe(0);
    expect((JSON.parse(e.stdout) as { stdout: string }).stdout).toMatch(
      /^5 \/opt\/piper\/built\/fastsum\/_csum\.\S+\.so None/,
    );
    // Unchanged workspace: the same key, reused.
    const again = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(again.code).toBe(0);
    expect(envRows(repo).map((x) => x.status)).toEqual(['built', 'hit', 'hit']);
  });
});

describe('a C extension that does not build, with a pure-Python fallback', () => {
  it('goes on with the fallback and says so', async () => {
    const repo = repos.newRepo('native-fallback', {}, fixture('native-fallback'));
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect((JSON.parse(r.stdout) as Result).counts).toMatchObject({ passed: 2, failed: 0 });
    const [row] = envRows(repo);
    expect(JSON.parse(row!.sources) as string[]).toContain(
      'native: setup.py: ext_modules, but the build made no compiled module; its pure-Python fallback is used',
    );
  });
});
