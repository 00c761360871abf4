// The package managers' configuration files copied to the download (runtime/env/js/plan/npmrc.ts,
// yaml-config.ts): an allowlist of keys; credentials, programs and variable expansions never copied,
// each drop a decision naming the key and never its value.
import { describe, expect, it } from 'vitest';
import { planOf, workflow } from '../helpers/js-plan-repo.js';

const PKG = { name: 'x', version: '1.0.0' };
const TOKEN = 'npm_SECRETSECRETSECRET';

function config(plan: ReturnType<typeof planOf>, path: string): string | undefined {
  return plan.configFiles.find((f) => f.path === path)?.text;
}

describe('.npmrc', () => {
  it('keeps the allowed keys and never a credential or a program', () => {
    const npmrc = [
      'registry=https://registry.example/',
      '@acme:registry=https://npm.acme.example/',
      `//registry.example/:_authToken=${TOKEN}`,
      '_auth=dXNlcjpwYXNz',
      'legacy-peer-deps=true',
      'script-shell=/tmp/evil.sh',
      'git=/tmp/evil-git',
      'node-options=--require /tmp/evil.js',
      '@other:registry=https://user:pass@npm.other.example/',
      'public-hoist-pattern[]=*eslint*',
      'strict-peer-deps=${STRICT}',
      '; a comment',
    ].join('\n');
    const plan = planOf({ 'package.json': PKG, '.npmrc': npmrc });
    const text = config(plan, '.npmrc')!;
    expect(text).toBe(
      'registry=https://registry.example/\n@acme:registry=https://npm.acme.example/\nlegacy-peer-deps=true\npublic-hoist-pattern[]=*eslint*\n',
    );
    const all = JSON.stringify(plan);
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('dXNlcjpwYXNz');
    expect(all).not.toContain('user:pass');
    expect(all).not.toContain('evil');
    const decisions = plan.decisions.join('\n');
    for (const key of [
      '_authToken (of a registry URL)',
      '_auth',
      'script-shell',
      'git',
      'node-options',
      '@other:registry',
      'strict-peer-deps',
    ])
      expect(decisions).toContain(`.npmrc: ${key} not copied`);
    expect(plan.configFiles[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('copies nothing when nothing is allowed', () => {
    const plan = planOf({ 'package.json': PKG, '.npmrc': `//host/:_authToken=${TOKEN}\n` });
    expect(plan.configFiles).toEqual([]);
  });

  it("sanitizes yarn 1's .yarnrc", () => {
    const plan = planOf({
      'package.json': PKG,
      '.yarnrc': 'registry "https://r.example/"\nyarn-path ".yarn/releases/yarn-1.js"\nignore-engines true\n',
    });
    expect(config(plan, '.yarnrc')).toBe('registry "https://r.example/"\nignore-engines true\n');
    expect(plan.decisions.join('\n')).toContain('.yarnrc: yarn-path not copied');
  });
});

describe("the CI's npm install flags", () => {
  it("takes --legacy-peer-deps into the download's .npmrc, beside what the repository's keeps", () => {
    const ci = workflow(['npm install --legacy-peer-deps', 'npm test']);
    const plan = planOf({
      'package.json': PKG,
      '.npmrc': 'save-exact=true\n',
      '.github/workflows/ci.yml': ci,
    });
    expect(config(plan, '.npmrc')).toBe('save-exact=true\nlegacy-peer-deps=true\n');
    expect(plan.decisions.join('\n')).toContain('the CI installs with --legacy-peer-deps');
    const none = planOf({
      'package.json': PKG,
      '.github/workflows/ci.yml': workflow(['npm ci', 'npm test']),
    });
    expect(none.configFiles).toEqual([]);
  });
});

describe('.yarnrc.yml and pnpm-workspace.yaml', () => {
  it('never copies yarnPath, plugins or a scope token', () => {
    const yarnrc = `yarnPath: .yarn/releases/yarn-4.1.0.cjs
nodeLinker: node-modules
enableGlobalCache: true
plugins:
  - path: .yarn/plugins/evil.cjs
npmScopes:
  acme:
    npmRegistryServer: "https://npm.acme.example"
    npmAuthToken: ${TOKEN}
npmAuthToken: ${TOKEN}
`;
    const plan = planOf({
      'package.json': PKG,
      '.yarnrc.yml': yarnrc,
      'yarn.lock': '__metadata:\n  version: 8\n',
    });
    const text = config(plan, '.yarnrc.yml')!;
    expect(text).toContain('nodeLinker: node-modules');
    expect(text).toContain('npmRegistryServer: https://npm.acme.example');
    expect(text).not.toMatch(/yarnPath|plugins|enableGlobalCache|evil/);
    expect(JSON.stringify(plan)).not.toContain(TOKEN);
    const decisions = plan.decisions.join('\n');
    for (const key of [
      'yarnPath',
      'plugins',
      'npmAuthToken',
      'npmScopes.acme.npmAuthToken',
      'enableGlobalCache',
    ])
      expect(decisions).toContain(`.yarnrc.yml: ${key} not copied`);
  });

  it('keeps the lockfile-shaping pnpm settings and drops the rest', () => {
    const ws =
      "packages:\n  - 'packages/*'\ncatalog:\n  react: ^18.0.0\noverrides:\n  foo: 1.0.0\npnpmfile: .pnpmfile.cjs\nscriptShell: /bin/evil\n";
    const plan = planOf({
      'package.json': PKG,
      'pnpm-workspace.yaml': ws,
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
    });
    const text = config(plan, 'pnpm-workspace.yaml')!;
    expect(text).toMatch(/packages:\n {2}- packages\/\*/);
    expect(text).toContain('react: ^18.0.0');
    expect(text).toContain('foo: 1.0.0');
    expect(text).not.toMatch(/pnpmfile|evil/);
    expect(plan.decisions.join('\n')).toContain('pnpm-workspace.yaml: scriptShell not copied');
  });

  it('reads a YAML alias bomb without expanding it', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 12; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      );
    const plan = planOf({ 'package.json': PKG, '.yarnrc.yml': bomb.join('\n') });
    expect(plan.configFiles).toEqual([]);
    expect(plan.decisions.join('\n')).toMatch(/\.yarnrc\.yml: not read as YAML/);
  });
});
