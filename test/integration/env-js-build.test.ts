// JavaScript environments built for real (engine and the user's npm registry): the download with
// the network and no repository code, the scripts offline, node_modules reaching /work as a link.
// Lockfiles are made on the host by npm itself (--package-lock-only: metadata only, no package
// code), or written here (pnpm, yarn 1) with the registry's URL read at run time.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ensureEnvironment } from '../../runtime/env/choose/ensure.js';
import { ensureJsEnvironment, type JsEnsureInput } from '../../runtime/env/choose/ensure-js.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { npmRegistry } from '../../runtime/env/js/toolchain/npm-registry.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import {
  isNumberPnpmLock,
  planOf,
  registryUnreachable,
  removeProjects,
  runIn,
  writeProject,
} from '../helpers/js-env.js';

const engine = new DockerEngine();
const sandbox = new Sandbox(engine, { image: loadRecipe().ref });
const skip = await registryUnreachable();
const made: string[] = [];
afterAll(async () => {
  await sandbox.close();
  for (const ref of made) await engine.removeImage(ref).catch(() => undefined);
  removeProjects();
});

function ensure(
  root: string,
  plan: JsEnsureInput['plan'],
  mode: JsEnsureInput['mode'] = 'auto',
  lines: string[] = [],
) {
  return ensureJsEnvironment({
    engine,
    ledger: null,
    repoRoot: root,
    plan,
    mode,
    owner: formatOwner(currentOwner()),
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
  });
}

const SIMPLE = {
  'package.json': JSON.stringify({
    name: 'simple',
    version: '1.0.0',
    dependencies: { 'is-number': '7.0.0' },
    devDependencies: { semver: '7.6.3' },
  }),
  'src/index.js': "module.exports = (x) => require('is-number')(x);\n",
};

describe.skipIf(skip !== null)(`JavaScript environments (${skip ?? 'registry answers'})`, () => {
  it('builds an npm project from its lockfile; its module and bin run offline from /work; again is a hit', async () => {
    const root = writeProject(SIMPLE);
    npmLock(root);
    const plan = planOf(root, { manager: 'npm', version: '10.9.9', lockfile: 'package-lock.json' });
    const first = await ensure(root, plan);
    made.push(first.image);
    console.log(
      `npm simple: ${first.status} in ${first.seconds.toFixed(1)} s, ${(first.sizeBytes / 1e6).toFixed(0)} MB`,
    );
    expect(first.status).toBe('built');
    expect(first.sources.join('\n')).toContain('scripts off');
    const r = await runIn(
      sandbox,
      first.image,
      SIMPLE,
      `node -e "console.log(require('./src')(5), require.resolve('is-number'))" && semver 1.2.3 && ls -l /work/node_modules | head -1 && node --version`,
    );
    expect(r.exit_code, JSON.stringify(r)).toBe(0);
    expect(r.stdout).toMatch(/^true \/opt\/piper\/js\/node_modules\/is-number\/index\.js\n1\.2\.3\n/);
    expect(r.stdout).toContain('v20.20.2');
    const again = await ensure(root, plan);
    console.log(`npm simple: ${again.status} in ${again.seconds.toFixed(2)} s`);
    expect(again.status).toBe('hit');
    expect(again.image).toBe(first.image);
  }, 900_000);

  it('a workspace install script runs only offline, without the login; workspace packages resolve to /work', async () => {
    const phone = [
      "const fs = require('fs');",
      "console.log('PIPER-PROBE token=' + (process.env.NPM_CONFIG_USERCONFIG || 'none') + ' held=' + fs.existsSync('/run/piper-npm'));",
      "require('https').get('https://example.com/', () => console.log('PIPER-PROBE reached')).on('error', (e) => console.log('PIPER-PROBE offline ' + e.code));",
    ].join(' ');
    const files = {
      'package.json': JSON.stringify({
        name: 'mono',
        private: true,
        workspaces: ['packages/a', 'packages/b'],
      }),
      'packages/a/package.json': JSON.stringify({
        name: 'a',
        version: '1.0.0',
        main: 'index.js',
        dependencies: { 'is-number': '7.0.0' },
        scripts: { install: `node -e "${phone.replace(/"/g, '\\"')}"` },
      }),
      'packages/a/index.js': "module.exports = (x) => require('is-number')(x) ? 'a-number' : 'a-not';\n",
      'packages/b/package.json': JSON.stringify({
        name: 'b',
        version: '1.0.0',
        dependencies: { a: '1.0.0', semver: '7.6.3' },
      }),
      'packages/b/index.js':
        "console.log(require('a')(3), require.resolve('a'), require('semver').valid('1.0.0'));\n",
    };
    const root = writeProject(files);
    npmLock(root);
    const plan = planOf(root, {
      manager: 'npm',
      version: '10.9.9',
      lockfile: 'package-lock.json',
      workspaces: ['packages/a', 'packages/b'],
    });
    const lines: string[] = [];
    const env = await ensure(root, plan, 'auto', lines);
    made.push(env.image);
    expect(env.status).toBe('built');
    // The build log: the script said nothing in the download, and offline it found no network and no login.
    const download = lines.findIndex((l) => l.includes('[download]'));
    const offline = lines.findIndex((l) => l.includes('[scripts offline]'));
    expect(download).toBeGreaterThan(-1);
    expect(offline).toBeGreaterThan(download);
    expect(lines.slice(download, offline).filter((l) => l.includes('PIPER-PROBE'))).toEqual([]);
    const probes = lines.slice(offline).filter((l) => l.includes('PIPER-PROBE'));
    expect(probes.join('\n')).toMatch(/PIPER-PROBE token=none held=false/);
    expect(probes.join('\n')).toMatch(/PIPER-PROBE offline (ENOTFOUND|EAI_AGAIN|ENETUNREACH)/);
    expect(probes.join('\n')).not.toContain('reached');
    const r = await runIn(sandbox, env.image, files, 'cd packages/b && node index.js');
    expect(r.exit_code, r.stderr).toBe(0);
    expect(r.stdout).toBe('a-number /work/packages/a/index.js 1.0.0\n');
  }, 900_000);
});

describe.skipIf(skip !== null)('ensureEnvironment with language javascript', () => {
  it('builds through the JavaScript builder, records the row, and gives the runs its PATH', async () => {
    const root = writeProject(SIMPLE);
    npmLock(root);
    const jsPlan = planOf(root, { manager: 'npm', version: '10.9.9', lockfile: 'package-lock.json' });
    const ledger = Ledger.open(join(root, 'ledger.sqlite'));
    try {
      const input = {
        engine,
        ledger,
        repoRoot: root,
        mode: 'auto' as const,
        trustRecipe: false,
        owner: formatOwner(currentOwner()),
        log: () => undefined,
        language: 'javascript' as const,
        jsPlan,
      };
      const first = await ensureEnvironment(input);
      made.push(first.image);
      const again = await ensureEnvironment(input);
      expect([first.status, again.status]).toEqual(['built', 'hit']);
      expect(first.plan).toBeNull();
      expect(first.jsPlan?.manager.name).toBe('npm');
      expect(first.run.env.PATH).toMatch(/^\/work\/node_modules\/\.bin:.*\/opt\/piper\/node\/bin:/);
      const rows = ledger.database.prepare('SELECT status, key, image FROM environments ORDER BY id').all();
      expect(rows).toEqual([
        { status: 'built', key: first.key, image: first.image },
        { status: 'hit', key: first.key, image: first.image },
      ]);
    } finally {
      ledger.close();
    }
  }, 900_000);
});

describe.skipIf(skip !== null)('hostile manifests', () => {
  it('a git dependency is left out (named), and bins named like commands of the image are removed', async () => {
    const files = {
      'package.json': JSON.stringify({
        name: 'hostile',
        private: true,
        workspaces: ['packages/shadow'],
        // which@1's bin is `which`, as Debian's.
        dependencies: { 'is-number': '7.0.0', which: '1.3.1', evil: 'github:example/evil' },
      }),
      'packages/shadow/package.json': JSON.stringify({
        name: 'shadow',
        version: '1.0.0',
        bin: { node: 'x.js', git: 'x.js', 'shadow-tool': 'x.js' },
      }),
      'packages/shadow/x.js': "#!/usr/bin/env node\nconsole.log('shadow ran');\n",
    };
    const root = writeProject(files);
    const env = await ensure(
      root,
      planOf(root, { manager: 'npm', version: '10.9.9', lockfile: null, workspaces: ['packages/shadow'] }),
    );
    made.push(env.image);
    expect(env.shortfalls.map((s) => [s.kind, s.name])).toEqual([['missing', 'evil']]);
    expect(env.sources.join('\n')).toMatch(/unlocked: no lockfile/);
    expect(env.sources.join('\n')).toMatch(/bins left out, named like a command of the image: .*\bwhich\b/);
    const r = await runIn(
      sandbox,
      env.image,
      files,
      'for c in node git which; do command -v $c; done && ls /work/node_modules/.bin && node -p "require(\'is-number\')(2)"',
    );
    expect(r.exit_code, JSON.stringify(r)).toBe(0);
    expect(r.stdout).toMatch(/^\/opt\/piper\/node\/bin\/node\n\/usr\/bin\/git\n\/usr\/bin\/which\n/);
    expect(r.stdout).toMatch(/\ntrue\n$/);
    expect(r.stdout.split('\n')).not.toContain('which');
  }, 900_000);
});

describe.skipIf(skip !== null)('a native addon', () => {
  it('compiles offline against the provided headers when its prebuilt binary cannot be fetched', async () => {
    const files = {
      'package.json': JSON.stringify({ name: 'native', version: '1.0.0', dependencies: { bcrypt: '5.1.1' } }),
    };
    const root = writeProject(files);
    npmLock(root);
    const env = await ensure(
      root,
      planOf(root, { manager: 'npm', version: '10.9.9', lockfile: 'package-lock.json' }),
    );
    made.push(env.image);
    console.log(
      `native (bcrypt): ${env.status} in ${env.seconds.toFixed(1)} s, ${(env.sizeBytes / 1e6).toFixed(0)} MB`,
    );
    expect(env.shortfalls).toEqual([]);
    const r = await runIn(
      sandbox,
      env.image,
      files,
      `node -e "const b = require('bcrypt'); console.log(b.compareSync('x', b.hashSync('x', 4)), require.resolve('bcrypt'))"`,
    );
    expect(r.exit_code, JSON.stringify(r)).toBe(0);
    expect(r.stdout).toBe('true /opt/piper/js/node_modules/bcrypt/bcrypt.js\n');
  }, 900_000);
});

describe.skipIf(skip !== null)('other managers', () => {
  it('builds a pnpm project from its lockfile', async () => {
    const files = {
      'package.json': JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { 'is-number': '7.0.0' } }),
      'pnpm-lock.yaml': isNumberPnpmLock(),
    };
    const root = writeProject(files);
    const env = await ensure(
      root,
      planOf(root, { manager: 'pnpm', version: '9.15.9', lockfile: 'pnpm-lock.yaml' }),
    );
    made.push(env.image);
    console.log(`pnpm: ${env.status} in ${env.seconds.toFixed(1)} s, ${(env.sizeBytes / 1e6).toFixed(0)} MB`);
    const r = await runIn(
      sandbox,
      env.image,
      files,
      `node -e "console.log(require('is-number')(1))" && pnpm --version`,
    );
    expect(r.exit_code, r.stderr).toBe(0);
    expect(r.stdout).toBe('true\n9.15.9\n');
    // pnpm rebuild ran over the tree offline (a store path other than the download's stops it).
    expect(env.shortfalls).toEqual([]);
  }, 900_000);

  it("builds a yarn berry project with piper's CLI, never the repository's yarnPath", async () => {
    const files = {
      'package.json': JSON.stringify({ name: 'b', version: '1.0.0', dependencies: { 'is-number': '7.0.0' } }),
    };
    const root = writeProject(files);
    const plan = planOf(root, { manager: 'yarn-berry', version: '4.18.1', lockfile: null });
    // A yarnPath that is not there: a yarn that honoured it would fail at once.
    plan.configFiles = [{ path: '.yarnrc.yml', sha256: '', text: 'yarnPath: .yarn/releases/absent.cjs\n' }];
    const env = await ensure(root, plan);
    made.push(env.image);
    console.log(`yarn berry: ${env.status} in ${env.seconds.toFixed(1)} s`);
    expect(env.shortfalls).toEqual([]);
    const r = await runIn(
      sandbox,
      env.image,
      files,
      `node -e "console.log(require('is-number')(1))" && yarn --version`,
    );
    expect(r.exit_code, JSON.stringify(r)).toBe(0);
    expect(r.stdout).toBe('true\n4.18.1\n');
  }, 900_000);

  it('builds a yarn 1 project from its lockfile', async () => {
    const integrity = execFileSync('npm', ['view', 'is-number@7.0.0', 'dist.integrity'], {
      encoding: 'utf8',
    }).trim();
    const files = {
      'package.json': JSON.stringify({ name: 'y', version: '1.0.0', dependencies: { 'is-number': '7.0.0' } }),
      'yarn.lock': [
        '# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.',
        '# yarn lockfile v1',
        '',
        '',
        'is-number@7.0.0:',
        '  version "7.0.0"',
        `  resolved "${npmRegistry().url}is-number/-/is-number-7.0.0.tgz"`,
        `  integrity ${integrity}`,
        '',
      ].join('\n'),
    };
    const root = writeProject(files);
    const env = await ensure(
      root,
      planOf(root, { manager: 'yarn', version: '1.22.22', lockfile: 'yarn.lock' }),
    );
    made.push(env.image);
    console.log(
      `yarn 1: ${env.status} in ${env.seconds.toFixed(1)} s, ${(env.sizeBytes / 1e6).toFixed(0)} MB`,
    );
    const r = await runIn(
      sandbox,
      env.image,
      files,
      `node -e "console.log(require('is-number')(1))" && yarn --version`,
    );
    expect(r.exit_code, r.stderr).toBe(0);
    expect(r.stdout).toBe('true\n1.22.22\n');
  }, 900_000);
});
