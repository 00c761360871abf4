// Hostile JavaScript repositories against the real engine and the user's npm registry, each planned
// by the real planner: install scripts of the root and of a dependency, an .npmrc that names a
// shell, a git, node options, credentials and a registry on this machine, bins named like system
// commands, a lockfile whose tarball URL carries a login, a pnpmfile, yarn berry's yarnPath and
// plugins, and two checkouts of one project, one of them hostile. Every script, pnpmfile, yarnPath
// and plugin is a sentinel (test/helpers/js-sentinel.ts): nothing may reach the host's listener,
// no marker may be written on the host, and the user's registry token (a login in the user's npmrc
// the registry does not need) and the repository's credentials reach no layer, log or ledger row.
// A workspace install script's offline run and a git dependency: env-js-build.test.ts.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ensureJsEnvironment } from '../../runtime/env/choose/ensure-js.js';
import { planJsEnvironment } from '../../runtime/env/js/plan/plan-js.js';
import { npmRegistry } from '../../runtime/env/js/toolchain/npm-registry.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';
import {
  isNumberPnpmLock,
  registryUnreachable,
  removeProjects,
  runIn,
  writeProject,
} from '../helpers/js-env.js';
import { probesBetween, startSentinel, type Sentinel } from '../helpers/js-sentinel.js';

const engine = new DockerEngine();
const sandbox = new Sandbox(engine, { image: loadRecipe().ref });
const skip = await registryUnreachable();
const made: string[] = [];
const USER_TOKEN = `piper-user-token-${process.pid}-Zq81`;
const REPO_TOKEN = `piper-repo-token-${process.pid}-Kx42`;
let sentinel: Sentinel;
let env: NodeJS.ProcessEnv = process.env;
let ledger: Ledger;

beforeAll(async () => {
  const scratch = writeProject({});
  sentinel = await startSentinel(scratch);
  // The user's npmrc: the registry configured here, and a login it does not need.
  const registry = npmRegistry().url;
  const userrc = join(scratch, 'user-npmrc');
  writeFileSync(
    userrc,
    `registry=${registry}\n${registry.replace(/^https?:/, '')}:_authToken=${USER_TOKEN}\n`,
  );
  env = { ...process.env, NPM_CONFIG_USERCONFIG: userrc };
  delete env.NPM_CONFIG_REGISTRY;
  delete env.npm_config_registry;
  ledger = Ledger.open(join(scratch, 'ledger.sqlite'));
});

afterAll(async () => {
  await sandbox.close();
  await sentinel?.close();
  ledger?.close();
  for (const ref of made) await engine.removeImage(ref).catch(() => undefined);
  removeProjects();
});

function ensure(root: string, lines: string[] = []) {
  return ensureJsEnvironment({
    engine,
    ledger,
    repoRoot: root,
    plan: planJsEnvironment(root),
    mode: 'auto',
    owner: formatOwner(currentOwner()),
    env,
    log: (line) => {
      lines.push(line);
      if (process.env.PIPER_TEST_VERBOSE) console.log(line);
    },
  });
}

function npmLock(root: string): void {
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'ignore',
    env,
  });
}

/** No sentinel phoned home or ran on the host; no login anywhere in the record. */
function nothingLeaked(lines: string[], secrets: string[]): void {
  expect(sentinel.hits).toEqual([]);
  expect(sentinel.markers()).toEqual([]);
  const record =
    JSON.stringify(ledger.database.prepare('SELECT * FROM environments').all()) + lines.join('\n');
  for (const secret of secrets) expect(record).not.toContain(secret);
}

const NPMRC = (port: number) =>
  [
    'script-shell=/bin/false',
    'git=/bin/false',
    'node-options=--require=/nonexistent/evil.js',
    'onload-script=/nonexistent/evil.js',
    `_authToken=${REPO_TOKEN}`,
    `//127.0.0.1:${port}/:_auth=${Buffer.from(`u:${REPO_TOKEN}`).toString('base64')}`,
    `@evil:registry=http://127.0.0.1:${port}/`,
    'legacy-peer-deps=true',
  ].join('\n');

describe.skipIf(skip !== null)(`hostile npm projects (${skip ?? 'registry answers'})`, () => {
  it('install scripts run only offline and find no login; .npmrc programs and credentials are dropped; bins named like commands go', async () => {
    const scripts = (who: string) => ({
      preinstall: sentinel.script(`${who}-preinstall`),
      install: sentinel.script(`${who}-install`),
      postinstall: sentinel.script(`${who}-postinstall`),
    });
    const files: Record<string, string> = {
      'package.json': JSON.stringify({
        name: 'hostile-npm',
        version: '1.0.0',
        private: true,
        packageManager: 'npm@10.9.9',
        workspaces: ['packages/dep'],
        dependencies: { 'is-number': '7.0.0', dep: '1.0.0' },
        scripts: { ...scripts('root'), prepare: sentinel.script('root-prepare') },
      }),
      '.nvmrc': '20\n',
      'packages/dep/package.json': JSON.stringify({
        name: 'dep',
        version: '1.0.0',
        // The build's tree has a workspace's manifest alone: bins must name a file it has.
        bin: { npm: 'package.json', ls: 'package.json', env: 'package.json', 'dep-tool': 'package.json' },
        scripts: scripts('dep'),
      }),
    };
    const root = writeProject(files);
    npmLock(root);
    // Written after the lock: the host's npm never reads it.
    writeFileSync(join(root, '.npmrc'), NPMRC(sentinel.port));
    files['.npmrc'] = NPMRC(sentinel.port);
    const plan = planJsEnvironment(root);
    const decisions = plan.decisions.join('\n');
    for (const key of [
      'script-shell',
      'git',
      'node-options',
      'onload-script',
      '_authToken',
      '_auth (of a registry URL)',
    ])
      expect(decisions).toContain(`.npmrc: ${key} not copied (not an allowed key)`);
    expect(decisions).toMatch(
      /\.npmrc: @evil:registry not copied \(it names this machine or a private network/,
    );
    expect(plan.configFiles.map((f) => f.text)).toEqual(['legacy-peer-deps=true\n']);

    const lines: string[] = [];
    const built = await ensure(root, lines);
    made.push(built.image);
    console.log(`hostile npm: ${built.status} in ${built.seconds.toFixed(1)} s`);
    expect(built.status).toBe('built');
    // A shell or node options the .npmrc named would have failed every script: none failed.
    expect(built.shortfalls).toEqual([]);
    expect(probesBetween(lines, '[download]', '[scripts offline]')).toEqual([]);
    const offline = probesBetween(lines, '[scripts offline]', null).join('\n');
    // The root's and the dependency's install scripts ran, offline, and found no login.
    for (const who of ['root', 'dep'])
      for (const when of ['preinstall', 'install', 'postinstall'])
        expect(offline).toContain(`PIPER-PROBE ${who}-${when} env=none held=none`);
    expect(built.sources.join('\n')).toMatch(
      /bins left out, named like a command of the image: (?=.*\benv\b)(?=.*\bnpm\b)(?=.*\bls\b)/,
    );
    nothingLeaked(lines, [USER_TOKEN, REPO_TOKEN]);

    const r = await runIn(
      sandbox,
      built.image,
      files,
      `for c in env npm ls; do command -v $c; done; ls /work/node_modules/.bin; grep -rlsF -e ${USER_TOKEN} -e ${REPO_TOKEN} /opt/piper /etc /root /tmp /home || echo no-login-in-image; cat /opt/piper/js/.npmrc`,
    );
    expect(r.exit_code, JSON.stringify(r)).toBe(0);
    expect(r.stdout).toMatch(/^\/(usr\/)?bin\/env\n\/opt\/piper\/bin\/npm\n\/(usr\/)?bin\/ls\n/);
    const bins = r.stdout.split('\n');
    expect(bins).toContain('dep-tool');
    for (const name of ['env', 'npm', 'ls']) expect(bins).not.toContain(name);
    expect(r.stdout).toContain('no-login-in-image\nlegacy-peer-deps=true\n');
  }, 900_000);

  it('a lockfile or manifest URL with a login, or to this machine, fails the build before any download', async () => {
    const base = {
      name: 'tarball',
      version: '1.0.0',
      packageManager: 'npm@10.9.9',
      dependencies: { 'is-number': '7.0.0' },
    };
    const root = writeProject({ 'package.json': JSON.stringify(base), '.nvmrc': '20\n' });
    npmLock(root);
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, Record<string, unknown>>;
    };
    /** The lockfile with is-number resolved at `url` (the user's npm may omit registry URLs). */
    const lockedAt = (url: string) => {
      const entry = lock.packages['node_modules/is-number']!;
      lock.packages['node_modules/is-number'] = { ...entry, resolved: url };
      return JSON.stringify(lock, null, 2);
    };
    const at = `127.0.0.1:${sentinel.port}/is-number-7.0.0.tgz`;
    const cases: Array<[string, string, RegExp]> = [
      [
        `http://piper:${REPO_TOKEN}@${at}`,
        'package-lock.json',
        /\(it carries a login\): http:\/\/\*\*\*@127\.0\.0\.1:/,
      ],
      [
        `http://${at}`,
        'package-lock.json',
        /\(it names this machine or a private network address\): http:\/\/127\.0\.0\.1:/,
      ],
    ];
    for (const [url, path, why] of cases) {
      writeFileSync(join(root, 'package-lock.json'), lockedAt(url));
      const lines: string[] = [];
      const error = await ensure(root, lines).then(
        () => new Error('built'),
        (e: Error) => e,
      );
      expect(error.message).toContain(`${path} names a tarball URL the download may not fetch`);
      expect(error.message).toMatch(why);
      expect(lines.join('\n')).not.toContain('[download]');
      nothingLeaked([...lines, error.message], [REPO_TOKEN, USER_TOKEN]);
    }
    // A direct tarball dependency in a manifest, with no lockfile.
    const direct = writeProject({
      'package.json': JSON.stringify({ ...base, dependencies: { x: `https://piper:${REPO_TOKEN}@${at}` } }),
      '.nvmrc': '20\n',
    });
    const error = await ensure(direct).then(
      () => new Error('built'),
      (e: Error) => e,
    );
    expect(error.message).toMatch(
      /package\.json names a tarball URL the download may not fetch \(it carries a login\): https:\/\/\*\*\*@/,
    );
    nothingLeaked([error.message], [REPO_TOKEN, USER_TOKEN]);
    expect(
      ledger.database.prepare("SELECT count(*) AS n FROM environments WHERE status = 'failed'").get(),
    ).toEqual({ n: 3 });
  }, 900_000);
});

describe.skipIf(skip !== null)('hostile pnpm and yarn berry configuration', () => {
  it('a .pnpmfile.cjs and the keys naming it are never used: pnpm installs without it', async () => {
    const files = {
      'package.json': JSON.stringify({
        name: 'hostile-pnpm',
        version: '1.0.0',
        packageManager: 'pnpm@9.15.9',
        dependencies: { 'is-number': '7.0.0' },
      }),
      '.nvmrc': '20\n',
      '.pnpmfile.cjs': `${sentinel.js('pnpmfile')}\nmodule.exports = { hooks: { readPackage: (p) => p } };\n`,
      '.npmrc': 'pnpmfile=.pnpmfile.cjs\nglobal-pnpmfile=.pnpmfile.cjs\n',
      'pnpm-workspace.yaml':
        'pnpmfile: .pnpmfile.cjs\nglobalPnpmfile: .pnpmfile.cjs\nscriptShell: /bin/false\n',
      'pnpm-lock.yaml': isNumberPnpmLock(env),
    };
    const root = writeProject(files);
    const lines: string[] = [];
    const built = await ensure(root, lines);
    made.push(built.image);
    console.log(`hostile pnpm: ${built.status} in ${built.seconds.toFixed(1)} s`);
    const decisions = built.plan.decisions.join('\n');
    for (const drop of [
      '.npmrc: pnpmfile not copied',
      '.npmrc: global-pnpmfile not copied',
      'pnpm-workspace.yaml: pnpmfile not copied',
      'pnpm-workspace.yaml: globalPnpmfile not copied',
      'pnpm-workspace.yaml: scriptShell not copied',
    ])
      expect(decisions).toContain(drop);
    // pnpm 9's offline rebuild may stop at its store check (a degraded shortfall of every pnpm tree
    // here, hostile or not); nothing of it may come from the pnpmfile or the dropped shell.
    expect(JSON.stringify(built.shortfalls)).not.toMatch(/pnpmfile|PIPER-PROBE|bin\/false/);

    expect(lines.join('\n')).not.toContain('PIPER-PROBE');
    nothingLeaked(lines, [USER_TOKEN]);
    const r = await runIn(
      sandbox,
      built.image,
      { 'package.json': files['package.json'] },
      `node -p "require('is-number')(1)" && ls -A /opt/piper/js`,
    );
    expect(r.exit_code, JSON.stringify(r)).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'true',
      '.piper-node-modules',
      'node_modules',
      'package.json',
      'pnpm-lock.yaml',
      '',
    ]);
  }, 900_000);

  it("yarn berry's yarnPath, plugins and a scope registry on this machine are never used", async () => {
    const files = {
      'package.json': JSON.stringify({
        name: 'hostile-berry',
        version: '1.0.0',
        packageManager: 'yarn@4.18.1',
        dependencies: { 'is-number': '7.0.0' },
      }),
      '.nvmrc': '20\n',
      '.yarnrc.yml': [
        'yarnPath: .yarn/releases/yarn-evil.cjs',
        'plugins:',
        '  - path: .yarn/plugins/evil.cjs',
        '    spec: evil',
        'npmScopes:',
        '  evil:',
        `    npmRegistryServer: "http://127.0.0.1:${sentinel.port}"`,
        'nodeLinker: node-modules',
        '',
      ].join('\n'),
      '.yarn/releases/yarn-evil.cjs': `${sentinel.js('yarnpath')}\n`,
      '.yarn/plugins/evil.cjs': `${sentinel.js('plugin')}\nmodule.exports = { name: 'evil', factory: () => ({}) };\n`,
    };
    const root = writeProject(files);
    const lines: string[] = [];
    const built = await ensure(root, lines);
    made.push(built.image);
    console.log(`hostile berry: ${built.status} in ${built.seconds.toFixed(1)} s`);
    const decisions = built.plan.decisions.join('\n');
    expect(decisions).toContain('.yarnrc.yml: yarnPath not copied');
    expect(decisions).toContain('.yarnrc.yml: plugins not copied');
    expect(decisions).toMatch(
      /\.yarnrc\.yml: npmScopes\.evil\.npmRegistryServer not copied \(it names this machine/,
    );
    expect(built.plan.configFiles.map((f) => f.text)).toEqual(['npmScopes: {}\nnodeLinker: node-modules\n']);
    expect(built.shortfalls).toEqual([]);
    expect(lines.join('\n')).not.toContain('PIPER-PROBE');
    nothingLeaked(lines, [USER_TOKEN]);
    const r = await runIn(
      sandbox,
      built.image,
      { 'package.json': files['package.json'] },
      `node -p "require('is-number')(1)" && yarn --version && find /opt/piper/js -path '*/node_modules' -prune -o -print`,
    );
    expect(r.exit_code, JSON.stringify(r)).toBe(0);
    expect(r.stdout).toMatch(/^true\n4\.18\.1\n/);
    // What berry keeps of its own (.yarn/install-state.gz), never the repository's release or plugin.
    expect(r.stdout).not.toMatch(/releases|plugins|evil/);
  }, 900_000);
});

describe.skipIf(skip !== null)('two checkouts of one project, one hostile', () => {
  it("the hostile checkout's files never reach an image, and the other checkout builds and runs its own", async () => {
    const benign: Record<string, string> = {
      'package.json': JSON.stringify({
        name: 'shared',
        version: '1.0.0',
        packageManager: 'npm@10.9.9',
        dependencies: { 'is-number': '7.0.0' },
      }),
      '.nvmrc': '20\n',
      'test.js': "console.log(require('is-number')(1) ? 'benign-ok' : 'poisoned');\n",
    };
    const first = writeProject(benign);
    npmLock(first);
    benign['package-lock.json'] = readFileSync(join(first, 'package-lock.json'), 'utf8');
    // The same declarations; a planted module, a pnpmfile, and an .npmrc whose every key is dropped.
    const hostile = writeProject({
      ...benign,
      'node_modules/is-number/index.js': "module.exports = () => 'POISON';\n",
      'node_modules/is-number/package.json': '{"name":"is-number","version":"7.0.0"}',
      '.pnpmfile.cjs': `${sentinel.js('poison-pnpmfile')}\n`,
      '.npmrc': `script-shell=/bin/false\n_authToken=${REPO_TOKEN}\n`,
    });
    const bad = await ensure(hostile);
    made.push(bad.image);
    const good = await ensure(writeProject(benign));
    made.push(good.image);
    // One key (the declarations), each checkout its own image.
    expect(good.key).toBe(bad.key);
    expect(good.image).not.toBe(bad.image);
    expect([bad.status, good.status]).toEqual(['built', 'built']);
    for (const image of [bad.image, good.image]) {
      const r = await runIn(
        sandbox,
        image,
        benign,
        `node test.js && (grep -rlsF -e POISON -e ${REPO_TOKEN} /opt/piper/js || echo clean)`,
      );
      expect(r.exit_code, JSON.stringify(r)).toBe(0);
      expect(r.stdout).toBe('benign-ok\nclean\n');
    }
    expect(sentinel.hits).toEqual([]);
    expect(sentinel.markers()).toEqual([]);
  }, 900_000);
});
