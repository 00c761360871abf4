// A lockfile with hashes, honoured in full against the real engine and pip: a local index on
// 127.0.0.1 serves the locked wheels and more. The environment holds exactly the locked closure
// for the sandbox's Python (not the newer release the index also has, not a package locked for
// Windows only), each recorded in the ledger with its sha256; and a wheel whose bytes changed after
// the lock was written is refused: the build fails, naming the package.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-lock-');
afterAll(() => repos.cleanup(engine));

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const PYPROJECT = [
  '[project]',
  'name = "lockedapp"',
  'version = "0.1.0"',
  'dependencies = ["lockdep>=1"]',
  '[dependency-groups]',
  'dev = ["pytest"]',
  '',
].join('\n');

/** uv.lock as uv writes it, for the wheels' real hashes. */
function uvLock(hashes: Record<string, string>): string {
  const pkg = (name: string, version: string, deps = '') =>
    `[[package]]\nname = "${name}"\nversion = "${version}"\nsource = { registry = "http://127.0.0.1/simple" }\n${deps}wheels = [\n    { url = "http://127.0.0.1/files/${name}-${version}-py3-none-any.whl", hash = "sha256:${hashes[name]}", size = 1 },\n]\n`;
  return [
    'version = 1\nrevision = 2\nrequires-python = ">=3.9"\n',
    '[[package]]\nname = "lockedapp"\nversion = "0.1.0"\nsource = { virtual = "." }\ndependencies = [\n    { name = "lockdep" },\n    { name = "winonly", marker = "sys_platform == \'win32\'" },\n]\n',
    pkg('lockdep', '1.0', 'dependencies = [\n    { name = "lockleaf" },\n]\n'),
    pkg('lockleaf', '2.0'),
    pkg('winonly', '1.0'),
  ].join('\n');
}

function repoFiles(lock: string): Record<string, string> {
  return {
    'pyproject.toml': PYPROJECT,
    'uv.lock': lock,
    'tests/test_locked.py':
      'import lockdep, lockleaf\n\ndef test_locked():\n    assert (lockdep.V, lockleaf.V) == ("1.0", "2.0")\n',
  };
}

describe('a lockfile with hashes', () => {
  it('installs exactly the locked closure, by hash, recorded with its sha256; a tampered wheel is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'piper-lock-wheels-'));
    const newer = mkdtempSync(join(tmpdir(), 'piper-lock-newer-'));
    const wheels = {
      lockdep: buildWheel(dir, 'lockdep', '1.0', { 'lockdep.py': 'V = "1.0"\n' }, ['lockleaf']),
      lockleaf: buildWheel(dir, 'lockleaf', '2.0', { 'lockleaf.py': 'V = "2.0"\n' }),
      winonly: buildWheel(dir, 'winonly', '1.0', { 'winonly.py': '' }),
    };
    const hashes = Object.fromEntries(Object.entries(wheels).map(([n, f]) => [n, sha256(f)]));
    // Newer releases an unlocked resolution would take.
    const extra = [
      buildWheel(newer, 'lockdep', '1.5', { 'lockdep.py': 'V = "1.5"\n' }, ['lockleaf']),
      buildWheel(newer, 'lockleaf', '3.0', { 'lockleaf.py': 'V = "3.0"\n' }),
    ];
    const index = await serveSimpleIndex([...Object.values(wheels), ...extra]);
    const env = {
      ...NO_PIP,
      PIP_INDEX_URL: index.url,
      PIP_RETRIES: '0',
      PIPER_WHEEL_CACHE: join(dir, 'cache'),
    };
    try {
      const repo = repos.newRepo('lockedapp', repoFiles(uvLock(hashes)));
      const plan = await runCli(['env', 'plan', '--repo', repo, '--json'], { env });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain('"locked"');
      const r = await runCli(['run-test', '--repo', repo, '--json', 'tests/'], { env });
      expect(
        r.code,
        `${r.stdout.slice(-3000)}\n${envRows(repo)
          .map((x) => x.sources + String(x.error))
          .join('\n')}`,
      ).toBe(0);
      expect((JSON.parse(r.stdout) as { counts: { passed: number } }).counts.passed).toBe(1);
      const row = envRows(repo).find((x) => x.status === 'built')!;
      const resolved = JSON.parse(row.resolved) as Array<{ name: string; version: string; sha256?: string }>;
      const locked = resolved.filter((p) => p.sha256).map((p) => [p.name, p.version, p.sha256]);
      expect(locked.sort()).toEqual([
        ['lockdep', '1.0', hashes.lockdep],
        ['lockleaf', '2.0', hashes.lockleaf],
      ]);
      expect(resolved.some((p) => p.name === 'winonly')).toBe(false);
      expect(index.requests.some((q) => q.path.includes('winonly'))).toBe(false);
      expect(row.sources).toContain(
        'pip (locked): 2 package(s) of uv.lock downloaded by hash (wheel cache: 0 offered, 2 new kept)',
      );

      // Another key (another project) with the same lock: the machine's wheel cache gives both
      // wheels by their locked hashes, and no file is downloaded from the index again.
      const files = () => index.requests.filter((q) => q.path.startsWith('/files/')).length;
      const before = files();
      const again = repos.newRepo('lockedagain', repoFiles(uvLock(hashes)));
      const second = await runCli(['env', 'build', '--repo', again], { env });
      expect(second.code, second.stderr.slice(-2000)).toBe(0);
      expect(files()).toBe(before);
      expect(envRows(again).find((x) => x.status === 'built')!.sources).toContain(
        'downloaded by hash (wheel cache: 2 offered, 0 new kept)',
      );

      // The same lock, but lockleaf's wheel rebuilt after it was written (the same name, other bytes).
      const tamperedDir = mkdtempSync(join(tmpdir(), 'piper-lock-tampered-'));
      const tampered = buildWheel(tamperedDir, 'lockleaf', '2.0', {
        'lockleaf.py': 'V = "2.0"  # altered\n',
      });
      expect(sha256(tampered)).not.toBe(hashes.lockleaf);
      const evil = await serveSimpleIndex([wheels.lockdep, tampered, wheels.winonly]);
      try {
        const repo2 = repos.newRepo('lockedapp2', repoFiles(uvLock(hashes)));
        const bad = await runCli(['run-test', '--repo', repo2, '--json', 'tests/'], {
          env: { ...env, PIP_INDEX_URL: evil.url, PIPER_WHEEL_CACHE: join(tamperedDir, 'cache') },
        });
        expect(bad.code).not.toBe(0);
        const said = `${bad.stdout}\n${bad.stderr}`;
        expect(said).toContain('refused: the file of lockleaf==2.0');
        expect(said).toContain('does not match the hash locked in uv.lock');
        const failed = envRows(repo2).find((x) => x.status === 'failed')!;
        expect(failed.error).toContain('lockleaf==2.0');
      } finally {
        await evil.close();
      }
    } finally {
      await index.close();
    }
  }, 600_000);
});
