// The project phase degrades instead of stopping, and what the build generates in the checkout is
// there at run time — real builds through the real CLI and engine: a build backend that cannot
// build leaves the project imported from its source tree through piper's .pth (one line, one
// shortfall); Debian's hatchling, which refuses a trove classifier newer than its list, builds with
// its own switch for that check set; a setuptools-scm `version_file` (Debian's python3-setuptools-scm,
// through best effort) is in /work when the suite's conftest imports it.
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { gitInOwnRepo } from '../../runtime/host/safe-git.js';
import { runCli } from '../helpers/cli.js';
import { NO_PIP, envRows, envScratch } from '../helpers/env-repos.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-degrade-');
afterAll(() => repos.cleanup(engine));
/** One environment build and a suite: under a minute idle, several on a loaded machine. */
const BUILD_MS = 400_000;

async function runTests(repo: string) {
  const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json'], { env: NO_PIP });
  const result = JSON.parse(r.stdout || '{}') as { counts?: { passed: number; failed: number } };
  return { ...r, counts: result.counts, row: envRows(repo).at(-1)! };
}

describe('a build backend that cannot build the project', () => {
  it(
    'gives the suite its project from the source tree, says so once, records a shortfall; strict stops',
    async () => {
      const repo = repos.newRepo('broken-backend', {
        'pyproject.toml':
          '[build-system]\nrequires = []\nbuild-backend = "broken_backend"\nbackend-path = ["_build"]\n\n[project]\nname = "brokenbuild"\nversion = "1.0"\n',
        '_build/broken_backend.py': [
          'def _refuse(*args, **kwargs):',
          '    raise RuntimeError("this backend cannot build")',
          'build_wheel = build_editable = prepare_metadata_for_build_wheel = prepare_metadata_for_build_editable = _refuse',
          '',
        ].join('\n'),
        'src/brokenbuild/__init__.py': 'def answer():\n    return 42\n',
        'tests/test_broken.py': [
          'import brokenbuild',
          '',
          'def test_answer():',
          '    assert brokenbuild.answer() == 42',
          '',
          'def test_from_the_source_tree():',
          '    assert brokenbuild.__file__ == "/work/src/brokenbuild/__init__.py"',
          '',
        ].join('\n'),
      });
      const r = await runTests(repo);
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.counts).toMatchObject({ passed: 2, failed: 0 });
      expect(r.stderr).toMatch(
        /degraded: brokenbuild its editable install → its source tree \(\/work\/src\)/,
      );
      expect(r.row.status).toBe('built');
      expect(JSON.parse(r.row.shortfalls ?? '[]')).toEqual([
        expect.objectContaining({ kind: 'degraded', name: 'brokenbuild' }),
      ]);
      expect(r.row.sources).toContain("brokenbuild is imported from /work/src through piper's .pth");
      // Strict does not degrade: the build stops, naming why.
      const strict = await runCli(['run-test', 'tests/', '--repo', repo, '--env', 'strict'], { env: NO_PIP });
      expect(strict.code, strict.stderr.slice(-2000)).toBe(2);
      expect(strict.stderr).toContain('installing the project editable failed (strict)');
    },
    BUILD_MS,
  );
});

describe("Debian's hatchling and a trove classifier newer than its list", () => {
  it(
    'installs the project: the classifier check is off',
    async () => {
      const repo = repos.newRepo('new-classifier', {
        'pyproject.toml': [
          '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n',
          '[project]\nname = "hatchy"\nversion = "0.3"',
          'classifiers = ["Programming Language :: Python :: 3.99", "Not A :: Real :: Classifier"]\n',
        ].join('\n'),
        'src/hatchy/__init__.py': 'VALUE = 3\n',
        'tests/test_hatchy.py': [
          'import importlib.metadata',
          'import hatchy',
          '',
          'def test_installed():',
          '    assert importlib.metadata.version("hatchy") == "0.3"',
          '    assert hatchy.VALUE == 3',
          '',
        ].join('\n'),
      });
      const r = await runTests(repo);
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.counts).toMatchObject({ passed: 1, failed: 0 });
      expect(r.stderr).not.toContain('degraded:');
    },
    BUILD_MS,
  );
});

describe('a setuptools-scm version_file', () => {
  it(
    'is in /work at run time, and the conftest imports it',
    async () => {
      const repo = repos.newRepo('scm-version-file', {
        'pyproject.toml': [
          '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=7"]\nbuild-backend = "setuptools.build_meta"\n',
          '[project]\nname = "scm-file"\ndynamic = ["version"]\n',
          '[tool.setuptools_scm]\nversion_file = "src/scmfile/_version.py"\n',
        ].join('\n'),
        '.gitignore': 'src/scmfile/_version.py\n',
        'src/scmfile/__init__.py': 'from scmfile._version import version as __version__\n',
        'tests/conftest.py': 'import scmfile._version\n',
        'tests/test_version.py': [
          'import scmfile',
          '',
          'def test_version_from_the_tag():',
          '    assert scmfile.__version__ == "2.0.0"',
          '',
        ].join('\n'),
      });
      gitInOwnRepo(repo, ['tag', 'v2.0.0'], { name: 'piper-agent', email: 'piper-agent@localhost' });
      const r = await runTests(repo);
      expect(r.code, r.stderr.slice(-3000)).toBe(0);
      expect(r.counts).toMatchObject({ passed: 1, failed: 0 });
      expect(r.row.sources).toContain('put into /work at run start: src/scmfile/_version.py');
    },
    BUILD_MS,
  );
});
