// setup.cfg's requirement lists as setuptools reads them: one per line, or `;`-separated when the
// value is on one line (astropy 3.1's `test = pytest-astropy; pytest-xdist; ...`).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSetupCfg } from '../../runtime/env/plan/deps/setup-cfg.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';

function read(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'setup-cfg-'));
  try {
    writeFileSync(join(dir, 'setup.cfg'), text);
    return readSetupCfg(new RepoReader(dir))!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('setup.cfg requirement lists', () => {
  it('a one-line value is split at semicolons', () => {
    const cfg = read('[options.extras_require]\ntest = pytest-astropy; pytest-xdist;  objgraph\n');
    expect(cfg.extras.get('test')!.map((r) => r.text)).toEqual([
      'pytest-astropy',
      'pytest-xdist',
      'objgraph',
    ]);
  });

  it('a value of several lines is split at its line ends only, markers kept', () => {
    const cfg = read(
      '[options]\ninstall_requires =\n    numpy>=1.13\n    importlib-metadata; python_version<"3.8"\n    # a comment\n',
    );
    expect(cfg.installRequires.map((r) => r.text)).toEqual([
      'numpy>=1.13',
      'importlib-metadata; python_version<"3.8"',
    ]);
  });
});
