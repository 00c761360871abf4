// The download-only dependency step's data readers: a wheel's METADATA read from the zip itself,
// Requires-Dist checked and evaluated as the planner would, and the lines the networked steps print.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { downloadedFiles, listedSdists } from '../../runtime/env/build/deps/download-steps.js';
import { metadataRequirements } from '../../runtime/env/build/deps/metadata-requirements.js';
import { readPipFailure } from '../../runtime/env/build/pip-failure.js';
import { sdistBuildRequires } from '../../runtime/env/build/deps/sdist-build-deps.js';
import { providedExtras, requiresDist, wheelMetadata } from '../../runtime/env/build/deps/wheel-metadata.js';
import { buildSdist, buildWheel } from '../helpers/wheels.js';

// The same wheel, every entry deflated (buildWheel stores them).
const DEFLATE = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as out:
    for name in src.namelist():
        out.writestr(name, src.read(name))
`;

const scratch = mkdtempSync(join(tmpdir(), 'piper-downloads-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('wheelMetadata', () => {
  it("reads a real wheel's METADATA, stored or deflated, without any Python", () => {
    const stored = buildWheel(scratch, 'demo', '1.0', { 'demo.py': 'x = 1\n' }, [
      'attrs>=22',
      'idna; extra == "test"',
    ]);
    const deflated = join(scratch, 'deflated.whl');
    execFileSync('python3', ['-c', DEFLATE, stored, deflated]);
    for (const wheel of [stored, deflated]) {
      const metadata = wheelMetadata(readFileSync(wheel))!;
      expect(metadata).toContain('Name: demo');
      expect(requiresDist(metadata)).toEqual(['attrs>=22', 'idna; extra == "test"']);
    }
  });

  it('is null for what is not a zip, or a truncated one', () => {
    expect(wheelMetadata(Buffer.from('not a zip at all, only text'))).toBeNull();
    const wheel = readFileSync(buildWheel(scratch, 'cut', '1.0', { 'cut.py': 'x = 1\n' }));
    expect(wheelMetadata(wheel.subarray(0, wheel.length - 30))).toBeNull();
  });
});

describe('metadataRequirements', () => {
  const metadata = [
    'Metadata-Version: 2.1',
    'Name: codedeps',
    'Version: 0.1',
    'Provides-Extra: test',
    'Requires-Dist: attrs',
    'Requires-Dist: tinydep (>=1)',
    "Requires-Dist: old-only; python_version < '3'",
    'Requires-Dist: pytest-mock; extra == "test"',
    'Requires-Dist: docs-thing; extra == "docs"',
    'Requires-Dist: evil @ http://127.0.0.1:9/evil-1.0.tar.gz',
    'Requires-Dist: not a requirement (',
    '',
    'Requires-Dist: in-the-body-not-a-header',
  ].join('\n');

  it('evaluates markers for the sandbox Python and the extras asked for; refuses URLs and garbage', () => {
    expect(providedExtras(metadata)).toEqual(['test']);
    const read = metadataRequirements(requiresDist(metadata), {
      python: '3.13',
      extras: ['test'],
      from: 'METADATA',
    });
    expect(read.requirements.map((q) => q.line)).toEqual(['attrs', 'tinydep>=1', 'pytest-mock']);
    expect(read.requirements[0]).toMatchObject({
      normalized: 'attrs',
      debian: 'python3-attr',
      from: 'METADATA',
    });
    expect(read.refused).toHaveLength(2);
    expect(read.refused[0]).toContain('evil: a direct URL or VCS reference is not followed');
  });
});

describe('the networked steps’ lines', () => {
  it("readPipFailure reads a dependency's missing requirement, its parent named", () => {
    expect(
      readPipFailure(
        'ERROR: Could not find a version that satisfies the requirement leaky>=1 (from pthy) (from versions: none)',
      ),
    ).toEqual({ kind: 'not_found', requirement: 'leaky>=1', name: 'leaky', versions: [] });
  });

  it('downloadedFiles keeps only distribution file names after the marker', () => {
    const out = 'noise\npiper-downloaded\nleaky-1.0-py3-none-any.whl\n../etc/passwd\nx-2.0.tar.gz\n';
    expect(downloadedFiles(out)).toEqual(['leaky-1.0-py3-none-any.whl', 'x-2.0.tar.gz']);
    expect(downloadedFiles('no marker')).toEqual([]);
  });

  it('listedSdists maps each version to the first file listed', () => {
    const out =
      'piper-sdist 1.0 leaky-1.0.tar.gz\npiper-sdist 1.0 leaky-1.0.zip\npiper-sdist-error URLError\npiper-sdist 2.0 leaky-2.0.zip\n';
    expect([...listedSdists(out)]).toEqual([
      ['1.0', 'leaky-1.0.tar.gz'],
      ['2.0', 'leaky-2.0.zip'],
    ]);
  });
});

describe('sdistBuildRequires', () => {
  it("reads the archive's pyproject.toml as data: Debian's setuptools and wheel, URLs and garbage left out", async () => {
    const sdist = buildSdist(scratch, 'helpme', '1.0', {
      'pyproject.toml':
        '[build-system]\nrequires = ["setuptools>=61", "wheel", "verhelper>=1", "evil @ http://127.0.0.1:9/e.tar.gz", "((", 3]\n',
      'setup.py': 'from setuptools import setup\nsetup()\n',
    });
    expect(await sdistBuildRequires('helpme-1.0.tar.gz', readFileSync(sdist))).toEqual(['verhelper>=1']);
    const plain = buildSdist(scratch, 'plain', '1.0', {
      'setup.py': 'from setuptools import setup\nsetup()\n',
    });
    expect(await sdistBuildRequires('plain-1.0.tar.gz', readFileSync(plain))).toEqual([]);
    expect(await sdistBuildRequires('x-1.0.tar.gz', Buffer.from('not gzip'))).toEqual([]);
  });
});
