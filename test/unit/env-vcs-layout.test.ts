// VCS versions and package-dir layouts, the parts that need no engine: the version read on the host
// from a real git repository (safe git), the variables it becomes, where a VCS version is detected
// from, and the package-dir import root (setup.py read as text; a mapping out of the repository is
// refused).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectLayout } from '../../runtime/env/plan/deps/layout.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';
import { detectVcsUse } from '../../runtime/env/plan/deps/vcs-use.js';
import { gitInOwnRepo } from '../../runtime/host/safe-git.js';
import { pretendVersionEnv, readVcsVersion } from '../../runtime/env/plan/vcs-version.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-vcs-'));
const me = { name: 't', email: 't@localhost' };
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function dir(name: string, files: Record<string, string>): string {
  const root = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

let commits = 0;
function commit(root: string, n: number): void {
  for (let i = 0; i < n; i++) {
    writeFileSync(join(root, 'f.txt'), `${++commits}\n`);
    gitInOwnRepo(root, ['add', 'f.txt'], me);
    gitInOwnRepo(root, ['commit', '-q', '-m', `c${commits}`], me);
  }
}

describe('readVcsVersion', () => {
  it('is 0.0.0 outside git, 0.0.0+g<hash> with no version tag, the tag or its next dev version', () => {
    const root = dir('r', { 'a.txt': 'a\n' });
    expect(readVcsVersion(root).version).toBe('0.0.0');
    gitInOwnRepo(root, ['init', '-q'], me);
    commit(root, 1);
    expect(readVcsVersion(root).version).toMatch(/^0\.0\.0\+g[0-9a-f]{7}$/);
    gitInOwnRepo(root, ['tag', 'release-notes'], me); // not a version: ignored
    expect(readVcsVersion(root).version).toMatch(/^0\.0\.0\+g[0-9a-f]{7}$/);
    gitInOwnRepo(root, ['tag', 'v2.9.0'], me);
    expect(readVcsVersion(root)).toMatchObject({ version: '2.9.0' });
    commit(root, 3);
    expect(readVcsVersion(root).version).toMatch(/^2\.9\.1\.dev3\+g[0-9a-f]{7}$/);
    gitInOwnRepo(root, ['tag', '3.0rc1'], me);
    commit(root, 1);
    expect(readVcsVersion(root).version).toMatch(/^3\.0rc2\.dev1\+g[0-9a-f]{7}$/);
  });

  it('becomes setuptools-scm’s variables (the name normalized as it does) and pdm-backend’s', () => {
    expect(pretendVersionEnv('zope.interface-x', '1.0')).toEqual({
      SETUPTOOLS_SCM_PRETEND_VERSION: '1.0',
      SETUPTOOLS_SCM_PRETEND_VERSION_FOR_ZOPE_INTERFACE_X: '1.0',
      PDM_BUILD_SCM_VERSION: '1.0',
    });
  });
});

describe('detectVcsUse', () => {
  const use = (files: Record<string, string>) =>
    detectVcsUse(new RepoReader(dir(`u${Math.random()}`, files)));
  it('finds each tool from its configuration, and says when build-system.requires lacks it', () => {
    expect(
      use({ 'pyproject.toml': '[build-system]\nrequires = ["hatchling", "hatch-vcs"]\n' }),
    ).toMatchObject({
      tool: 'hatch-vcs',
      declared: true,
    });
    expect(use({ 'pyproject.toml': '[tool.setuptools_scm]\n' })).toMatchObject({
      tool: 'setuptools-scm',
      declared: false,
    });
    expect(use({ 'pyproject.toml': '[tool.pdm.version]\nsource = "scm"\n' })).toMatchObject({
      tool: 'pdm-backend',
    });
    expect(use({ 'setup.py': 'setup(use_scm_version=True)\n' })).toMatchObject({ tool: 'setuptools-scm' });
    expect(use({ 'pyproject.toml': '[project]\nname = "x"\nversion = "1"\n' })).toBeNull();
  });
});

describe('detectLayout: package_dir mappings', () => {
  const layout = (files: Record<string, string>) =>
    detectLayout(new RepoReader(dir(`l${Math.random()}`, files)), null);
  it('reads setup.py’s package_dir as text: lib/ is the import root', () => {
    expect(layout({ 'setup.py': "setup(package_dir={'': 'lib'})\n", 'lib/x.py': '' })).toMatchObject({
      layout: 'package-dir',
      importRoot: '/work/lib',
    });
    expect(layout({ 'setup.py': 'setup(package_dir = { "" : "src" })\n' })).toMatchObject({ layout: 'src' });
  });
  it('refuses a mapping out of the repository', () => {
    const out = layout({ 'setup.py': 'setup(package_dir={"": "../elsewhere"})\n' });
    expect(out).toMatchObject({ layout: 'flat', importRoot: '/work' });
    expect(out.decision).toContain('not a plain directory');
  });
});
