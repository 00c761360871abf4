// Debian 11's Python 3.9, chosen by an old project's own word: a setup.py whose python_requires
// excludes 3.11 and 3.13. Against the real engine, the bullseye sandbox image is built when no
// image of its recipe is there (once: later runs find it), the environment is built on it, and
// pytest runs in it under 3.9; a dependency from a local index is installed by bullseye's pip
// (20.3, which writes no install report: piper makes it from the venv).
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_PIP, envScratch } from '../helpers/env-repos.js';
import { buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-py39-');
afterAll(() => repos.cleanup(engine));

const SETUP_PY = `from setuptools import setup

setup(name="oldpkg", version="0.1", packages=["oldpkg"], python_requires="<3.10")
`;

describe('a project that requires Python < 3.10', () => {
  it('gets Python 3.9 on Debian bullseye, and its tests run there', async () => {
    const repo = repos.newRepo('oldpkg', {
      'setup.py': SETUP_PY,
      // No build requirement to fetch: the local index holds olddep alone (Debian's setuptools builds it).
      'pyproject.toml': '[build-system]\nrequires = []\nbuild-backend = "setuptools.build_meta:__legacy__"\n',
      'requirements.txt': 'olddep\n',
      'oldpkg/__init__.py': 'import sys\n\nVERSION = "%d.%d" % sys.version_info[:2]\n',
      'tests/test_version.py':
        'import olddep\nimport oldpkg\n\n\ndef test_runs_on_39():\n    assert oldpkg.VERSION == "3.9"\n    assert olddep.FROM == "index"\n',
    });
    const plan = await runCli(['env', 'plan', '--repo', repo, '--json'], { env: NO_PIP });
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as { python: string; debian: string; decisions: string[] };
    expect([planned.python, planned.debian]).toEqual(['3.9', 'bullseye']);
    expect(planned.decisions).toContain(
      'Python 3.9 on Debian bullseye: requires-python "<3.10" (setup.py python_requires (as text)) excludes 3.13 and 3.11',
    );
    const dir = mkdtempSync(join(tmpdir(), 'piper-py39-wheels-'));
    const index = await serveSimpleIndex([
      buildWheel(dir, 'olddep', '1.0', { 'olddep/__init__.py': 'FROM = "index"\n' }),
    ]);
    const env = { ...NO_PIP, PIP_INDEX_URL: index.url, PIPER_WHEEL_CACHE: join(dir, 'cache') };
    const r = await runCli(['run-test', '--repo', repo, '--json', 'tests/'], { env }).finally(() =>
      index.close(),
    );
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const result = JSON.parse(r.stdout) as { counts: { passed: number; failed: number } };
    expect(result.counts).toMatchObject({ passed: 1, failed: 0 });
    // The first run on a machine builds the bullseye image (about two minutes) before the environment.
  }, 900_000);
});
