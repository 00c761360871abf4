// setuptools-git-versioning, which reads no variable but a PKG-INFO at the project's root first:
// where it is detected from (its templates with it), the version read on the host from a real git
// repository as its templates make it, and the PKG-INFO line of the editable install.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editableInstallLines } from '../../runtime/env/build/project/project-install.js';
import { detectVcsUse } from '../../runtime/env/plan/deps/vcs-use.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';
import { projectInstallFor, readGitVersioningVersion } from '../../runtime/env/plan/vcs-version.js';
import { gitInOwnRepo } from '../../runtime/host/safe-git.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-sgv-'));
const me = { name: 't', email: 't@localhost' };
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function repo(name: string, pyproject: string): string {
  const root = join(scratch, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'pyproject.toml'), pyproject);
  gitInOwnRepo(root, ['init', '-q'], me);
  gitInOwnRepo(root, ['add', '.'], me);
  gitInOwnRepo(root, ['commit', '-q', '-m', 'first'], me);
  return root;
}

function commitMore(root: string, n: number): void {
  for (let i = 0; i < n; i++) {
    writeFileSync(join(root, 'f.txt'), `${i}\n`);
    gitInOwnRepo(root, ['add', 'f.txt'], me);
    gitInOwnRepo(root, ['commit', '-q', '-m', `c${i}`], me);
  }
}

const REQUIRES =
  '[build-system]\nrequires = ["setuptools>=61", "setuptools-git-versioning >=2.0"]\nbuild-backend = "setuptools.build_meta"\n\n' +
  '[project]\nname = "t"\ndynamic = ["version"]\n';

describe('setuptools-git-versioning', () => {
  it('is found from build-system.requires or its enabled [tool] table, with its templates', () => {
    const declared = repo(
      'declared',
      `${REQUIRES}\n[tool.setuptools-git-versioning]\nenabled = true\ndev_template = "{tag}+{ccount}.g{sha}"\n`,
    );
    expect(detectVcsUse(new RepoReader(declared))).toMatchObject({
      tool: 'setuptools-git-versioning',
      declared: true,
      templates: { dev: '{tag}+{ccount}.g{sha}' },
    });
    const tableOnly = repo('table-only', '[tool.setuptools-git-versioning]\nenabled = true\n');
    expect(detectVcsUse(new RepoReader(tableOnly))).toMatchObject({
      tool: 'setuptools-git-versioning',
      declared: false,
    });
  });

  it('reads the version as its templates make it: the tag, N commits on, no tag', () => {
    const root = repo('versions', REQUIRES);
    expect(readGitVersioningVersion(root).version).toBe('0.0.1');
    gitInOwnRepo(root, ['tag', 'v1.1.0'], me);
    expect(readGitVersioningVersion(root).version).toBe('1.1.0');
    commitMore(root, 3);
    expect(readGitVersioningVersion(root).version).toMatch(/^1\.1\.0\.post3\+git\.[0-9a-f]{8}$/);
    expect(readGitVersioningVersion(root, { dev: '{tag}+{ccount}.g{sha}' }).version).toMatch(
      /^1\.1\.0\+3\.g[0-9a-f]{8}$/,
    );
    // A line break or a shell's characters in a template: its default template instead.
    expect(readGitVersioningVersion(root, { dev: '{tag}\nName: x $(id)' }).version).toMatch(
      /^1\.1\.0\.post3\+git\.[0-9a-f]{8}$/,
    );
    // A placeholder not read here ({branch}, {env:…}): its default template instead.
    expect(readGitVersioningVersion(root, { dev: '{tag}.dev{ccount}+{branch}' }).version).toMatch(
      /^1\.1\.0\.post3\+git\./,
    );
  });

  it('becomes a PKG-INFO the editable install writes when the project has none, and no variable', () => {
    const root = repo('install', REQUIRES);
    gitInOwnRepo(root, ['tag', '2.0'], me);
    const install = projectInstallFor(root, 't');
    expect(install).toMatchObject({ pkgInfo: '2.0' });
    expect(install.env).toBeUndefined();
    const lines = editableInstallLines('pip', install, (t) => `'${t}'`);
    expect(lines).toContain(
      `[ -e PKG-INFO ] || printf 'Metadata-Version: 2.1\\nVersion: %s\\n' '2.0' > PKG-INFO`,
    );
  });
});

describe('a repository named by a relative path', () => {
  it('reads the same version as by its absolute path', () => {
    const root = repo('relative', REQUIRES);
    gitInOwnRepo(root, ['tag', '3.1'], me);
    const cwd = process.cwd();
    process.chdir(scratch);
    try {
      expect(readGitVersioningVersion('relative').version).toBe('3.1');
    } finally {
      process.chdir(cwd);
    }
  });
});
