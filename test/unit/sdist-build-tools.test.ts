// Which source distributions are built with a compiler, read from the sdist's files as data.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sdistBuildTools } from '../../runtime/env/build/offline/sdist-compiler.js';
import { buildSdist } from '../helpers/wheels.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-sdist-tools-'));
const tools = (name: string, files: Record<string, string>) => {
  const path = buildSdist(dir, name, '1.0', {
    'setup.py': 'from setuptools import setup\nsetup()\n',
    ...files,
  });
  return sdistBuildTools(`${name}-1.0.tar.gz`, readFileSync(path));
};

describe('sdistBuildTools', () => {
  it('a pure-Python sdist needs none', async () => {
    expect(await tools('pure', { 'pure/__init__.py': '' })).toEqual([]);
  });
  it('C sources: the compiler, libc headers and Python headers, and the -dev package of an included library', async () => {
    expect(await tools('cz', { 'cz/_z.c': '#include <Python.h>\n#include <zlib.h>\n' })).toEqual([
      'gcc',
      'libc6-dev',
      'python3-dev',
      'zlib1g-dev',
    ]);
  });
  it('C++ sources add g++; sources only under tests/ do not count', async () => {
    expect(await tools('cpp', { 'cpp/x.cpp': 'int f() { return 1; }\n' })).toContain('g++');
    expect(await tools('testsonly', { 'tests/helper.c': 'int x;\n' })).toEqual([]);
  });
  it('what is not a readable .tar.gz is built as before', async () => {
    expect(await sdistBuildTools('x-1.0.zip', Buffer.from('PK'))).toEqual([]);
    expect(await sdistBuildTools('x-1.0.tar.gz', Buffer.from('not gzip'))).toEqual([]);
  });
});
