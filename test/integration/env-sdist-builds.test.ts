// Dependencies the indexes serve only as source distributions, built as a CI's `pip install` would
// build them, but offline: one with a C extension (a compiler in the build, none in the environment)
// and one whose build system asks for setuptools>=77 (PEP 639's license expression, which Debian's
// setuptools cannot build). Their build requirements come from the real index this machine is
// configured with; the sdists from a local index on 127.0.0.1 beside it. Skipped, with the reason,
// where the real index does not answer.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { runCli } from '../helpers/cli.js';
import { envRows, envScratch } from '../helpers/env-repos.js';
import { realIndex } from '../helpers/real-index.js';
import { buildSdist, serveSimpleIndex } from '../helpers/wheels.js';

const index = realIndex();
if (!index.reachable) console.warn(`env-sdist-builds: skipped: ${index.reason}`);

const engine = new DockerEngine();
const repos = envScratch('piper-env-sdist-builds-');
afterAll(() => repos.cleanup(engine));

const C_SOURCE = `#define PY_SSIZE_T_CLEAN
#include <Python.h>
static PyObject *twice(PyObject *self, PyObject *args) {
    long n;
    if (!PyArg_ParseTuple(args, "l", &n)) return NULL;
    return PyLong_FromLong(2 * n);
}
static PyMethodDef methods[] = {{"twice", twice, METH_VARARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast", NULL, -1, methods};
PyMODINIT_FUNC PyInit__fast(void) { return PyModule_Create(&module); }
`;

function sdists(dir: string): string[] {
  const cfast = buildSdist(dir, 'cfast', '1.0', {
    'pyproject.toml':
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n',
    'setup.py':
      'from setuptools import Extension, setup\n' +
      'setup(name="cfast", version="1.0", packages=["cfast"],\n' +
      '      ext_modules=[Extension("cfast._fast", ["cfast/_fast.c"])])\n',
    'cfast/__init__.py': 'from cfast._fast import twice\n',
    'cfast/_fast.c': C_SOURCE,
  });
  const modern = buildSdist(dir, 'modernlic', '1.0', {
    'pyproject.toml':
      '[build-system]\nrequires = ["setuptools>=77"]\nbuild-backend = "setuptools.build_meta"\n\n' +
      '[project]\nname = "modernlic"\nversion = "1.0"\nlicense = "MIT"\nlicense-files = ["LICENSE"]\n\n' +
      '[tool.setuptools]\npy-modules = ["modernlic"]\n',
    LICENSE: 'MIT License\n',
    'modernlic.py': 'def where():\n    return "built with a setuptools of its own"\n',
  });
  return [cfast, modern];
}

interface Result {
  passed: boolean;
  counts: { passed: number; failed: number; errors: number };
}

describe('sdist-only dependencies, built offline', () => {
  it.skipIf(!index.reachable)(
    'a C extension and a setuptools>=77 build: both installed, their tests pass, no compiler left',
    async () => {
      const dir = join(repos.scratch, 'sdists');
      mkdirSync(dir, { recursive: true });
      const local = await serveSimpleIndex(sdists(dir));
      try {
        const repo = repos.newRepo('sdist-builds', {
          'requirements.txt': 'cfast==1.0\nmodernlic==1.0\n',
          'tests/test_built.py':
            'import cfast, modernlic\n\n' +
            'def test_c_extension():\n    assert cfast.twice(21) == 42\n\n' +
            'def test_modern_build():\n    assert modernlic.where().startswith("built")\n',
        });
        const env = {
          ...process.env,
          PIP_EXTRA_INDEX_URL: local.url,
          PIP_FIND_LINKS: '',
          PIPER_WHEEL_CACHE: mkdtempSync(join(tmpdir(), 'piper-sdist-builds-cache-')),
          CI: 'true',
        };
        const r = await runCli(['run-test', 'tests/', '--repo', repo, '--json', '--sources', 'index'], {
          env,
        });
        expect(r.code, r.stderr.slice(-3000)).toBe(0);
        expect((JSON.parse(r.stdout) as Result).counts).toMatchObject({ passed: 2, failed: 0, errors: 0 });
        const [row] = envRows(repo);
        // The compiler was in the sdist's build box only, and the record says so.
        expect(JSON.parse(row!.sources) as string[]).toContainEqual(
          expect.stringMatching(/^sdist build tools: gcc libc6-dev python3-dev \(/),
        );
        const resolved = JSON.parse(row!.resolved) as Array<{ name: string; version: string }>;
        expect(resolved).toContainEqual(expect.objectContaining({ name: 'cfast', version: '1.0' }));
        expect(resolved).toContainEqual(expect.objectContaining({ name: 'modernlic', version: '1.0' }));
        // The sdists were fetched from the local index; nothing else was asked of it but pages and files.
        expect(local.requests.some((q) => q.path === '/files/cfast-1.0.tar.gz')).toBe(true);
        const code =
          'import shutil, cfast._fast as f; print(f.__file__, shutil.which("gcc"), shutil.which("cc"))';
        const e = await runCli(['execute', '--repo', repo, '--code', code, '--json'], { env });
        expect(e.code, e.stderr).toBe(0);
        expect((JSON.parse(e.stdout) as { stdout: string }).stdout).toMatch(/\.so None None\n?$/);
      } finally {
        await local.close();
      }
    },
    900_000,
  );
});
