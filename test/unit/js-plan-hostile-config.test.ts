// Every key a hostile repository's package-manager configuration may use to run a program, load its
// own code, carry a login or point the networked download at this machine is dropped by the planner,
// each a decision naming the key and never its value (runtime/env/js/plan/npmrc.ts, yaml-config.ts,
// download-urls.ts). End to end against the engine: test/integration/env-js-hostile.test.ts.
import { describe, expect, it } from 'vitest';
import { planOf } from '../helpers/js-plan-repo.js';

const PKG = { name: 'x', version: '1.0.0' };
const SECRET = 'piper-secret-value-9f3';

describe('.npmrc: programs, own code, logins and configuration elsewhere', () => {
  const dropped = [
    'script-shell',
    'git',
    'node-options',
    'onload-script',
    'shell',
    'editor',
    'browser',
    'pnpmfile',
    'global-pnpmfile',
    'ignore-scripts',
    'userconfig',
    'globalconfig',
    'prefix',
    'cache',
    'store-dir',
    'cafile',
    'ca',
    'certfile',
    'keyfile',
    'cert',
    'key',
    'proxy',
    'https-proxy',
    'noproxy',
    'strict-ssl',
    '_auth',
    '_authToken',
    '_password',
    'username',
    'email',
    'always-auth',
    'replace-registry-host',
    'package-manager-strict',
    'manage-package-manager-versions',
  ];

  it('drops each, naming the key and never the value', () => {
    const plan = planOf({
      'package.json': PKG,
      '.npmrc': dropped.map((k) => `${k}=${SECRET}`).join('\n'),
    });
    const decisions = plan.decisions.join('\n');
    for (const key of dropped) expect(decisions).toContain(`.npmrc: ${key} not copied (not an allowed key)`);
    expect(plan.configFiles).toEqual([]);
    expect(JSON.stringify(plan)).not.toContain(SECRET);
  });

  it('drops a per-registry login of any kind', () => {
    const keys = ['_authToken', '_auth', '_password', 'username', 'certfile', 'keyfile'];
    const plan = planOf({
      'package.json': PKG,
      '.npmrc': keys.map((k) => `//127.0.0.1:4873/:${k}=${SECRET}`).join('\n'),
    });
    for (const key of keys)
      expect(plan.decisions.join('\n')).toContain(`.npmrc: ${key} (of a registry URL) not copied`);
    expect(JSON.stringify(plan)).not.toContain(SECRET);
  });

  it('drops a registry on this machine or a private network, keeps a public one', () => {
    const plan = planOf({
      'package.json': PKG,
      '.npmrc': [
        'registry=http://127.0.0.1:4873/',
        '@a:registry=http://localhost:4873/',
        '@b:registry=http://10.1.2.3/',
        '@c:registry=http://[::1]:4873/',
        '@d:registry=http://169.254.169.254/',
        '@e:registry=http://192.168.1.9/',
        '@f:registry=https://npm.example.com/',
      ].join('\n'),
    });
    const decisions = plan.decisions.join('\n');
    for (const key of ['registry', '@a:registry', '@b:registry', '@c:registry', '@d:registry', '@e:registry'])
      expect(decisions).toContain(
        `.npmrc: ${key} not copied (it names this machine or a private network address`,
      );
    expect(plan.configFiles.map((f) => f.text)).toEqual(['@f:registry=https://npm.example.com/\n']);
  });

  it("drops yarn 1's programs and a local registry from .yarnrc", () => {
    const plan = planOf({
      'package.json': PKG,
      '.yarnrc': `yarn-path ".yarn/releases/evil.js"\nregistry "http://127.0.0.1:4873/"\nscript-shell /bin/false\ncafile /x\n`,
    });
    const decisions = plan.decisions.join('\n');
    for (const key of ['yarn-path', 'script-shell', 'cafile'])
      expect(decisions).toContain(`.yarnrc: ${key} not copied (not an allowed key)`);
    expect(decisions).toContain('.yarnrc: registry not copied (it names this machine');
    expect(plan.configFiles).toEqual([]);
  });
});

describe('.yarnrc.yml and pnpm-workspace.yaml', () => {
  it("drops berry's own code, shells and logins, and a registry with a login or on this machine", () => {
    const plan = planOf({
      'package.json': PKG,
      '.yarnrc.yml': [
        'yarnPath: .yarn/releases/evil.cjs',
        'plugins: [.yarn/plugins/evil.cjs]',
        'injectEnvironmentFiles: [.env]',
        'httpsCaFilePath: /x',
        'httpProxy: http://127.0.0.1:8080',
        `npmAuthToken: ${SECRET}`,
        `npmAuthIdent: ${SECRET}`,
        'npmRegistryServer: "http://127.0.0.1:4873"',
        'npmScopes:',
        '  a:',
        `    npmRegistryServer: "https://u:${SECRET}@npm.example.com"`,
        '  b:',
        '    npmRegistryServer: "http://10.0.0.1"',
        '  c:',
        '    npmRegistryServer: "https://npm.example.com"',
        '',
      ].join('\n'),
    });
    const decisions = plan.decisions.join('\n');
    for (const key of [
      'yarnPath',
      'plugins',
      'injectEnvironmentFiles',
      'httpsCaFilePath',
      'httpProxy',
      'npmAuthToken',
      'npmAuthIdent',
    ])
      expect(decisions).toContain(`.yarnrc.yml: ${key} not copied (not an allowed key)`);
    expect(decisions).toContain('.yarnrc.yml: npmRegistryServer not copied (it names this machine');
    expect(decisions).toContain('.yarnrc.yml: npmScopes.a.npmRegistryServer not copied (it carries a login)');
    expect(decisions).toContain(
      '.yarnrc.yml: npmScopes.b.npmRegistryServer not copied (it names this machine',
    );
    expect(plan.configFiles.map((f) => f.text)).toEqual([
      'npmScopes:\n  c:\n    npmRegistryServer: https://npm.example.com\n',
    ]);
    expect(JSON.stringify(plan)).not.toContain(SECRET);
  });

  it("drops pnpm's pnpmfiles, shells and a registry on this machine", () => {
    const plan = planOf({
      'package.json': PKG,
      'pnpm-workspace.yaml': [
        'pnpmfile: .pnpmfile.cjs',
        'globalPnpmfile: .pnpmfile.cjs',
        'scriptShell: /bin/false',
        'shellEmulator: true',
        'storeDir: /tmp/evil-store',
        'registry: http://localhost:4873/',
        'packages: [packages/*]',
        '',
      ].join('\n'),
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    });
    const decisions = plan.decisions.join('\n');
    for (const key of ['pnpmfile', 'globalPnpmfile', 'scriptShell', 'shellEmulator', 'storeDir'])
      expect(decisions).toContain(`pnpm-workspace.yaml: ${key} not copied (not an allowed key)`);
    expect(decisions).toContain('pnpm-workspace.yaml: registry not copied (it names this machine');
    expect(plan.configFiles.map((f) => f.text)).toEqual(['packages:\n  - packages/*\n']);
  });
});
