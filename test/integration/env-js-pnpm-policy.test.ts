// pnpm 11 checks every locked entry against its release-age policy before it installs, asking the
// registry for each packument, other platforms' optional packages too. piper's download turns that
// policy off (the lockfile's integrity hashes fix what is installed): a locked optional package for
// another platform that the registry does not have is skipped, as a frozen install skips it, and the
// build succeeds. And the workspace settings a lockfile records (dedupePeers) reach the frozen
// download, which fails on any that differs. Real engine, the user's registry, pnpm 11.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ensureJsEnvironment } from '../../runtime/env/choose/ensure-js.js';
import { planJsEnvironment } from '../../runtime/env/js/plan/plan-js.js';
import { Sandbox } from '../../runtime/sandbox/sandbox.js';
import { currentOwner, formatOwner } from '../../runtime/sandbox/owner.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { planOf, registryUnreachable, removeProjects, runIn, writeProject } from '../helpers/js-env.js';

const engine = new DockerEngine();
const sandbox = new Sandbox(engine, { image: loadRecipe().ref });
const skip = await registryUnreachable();
const made: string[] = [];
afterAll(async () => {
  await sandbox.close();
  for (const ref of made) await engine.removeImage(ref).catch(() => undefined);
  removeProjects();
});

/** A name no registry holds: its packument answers 404. */
const ABSENT = '@piper-absent-fixture-3f9c/native-darwin-x64';

function lockfile(integrity: string, settings: string[] = []): string {
  return [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    ...settings,
    '  excludeLinksFromLockfile: false',
    '',
    'importers:',
    '',
    '  .:',
    '    dependencies:',
    '      is-number:',
    '        specifier: 7.0.0',
    '        version: 7.0.0',
    '    optionalDependencies:',
    `      '${ABSENT}':`,
    '        specifier: 1.0.0',
    '        version: 1.0.0',
    '',
    'packages:',
    '',
    `  '${ABSENT}@1.0.0':`,
    `    resolution: {integrity: ${integrity}}`,
    '    cpu: [x64]',
    '    os: [darwin]',
    '',
    '  is-number@7.0.0:',
    `    resolution: {integrity: ${integrity}}`,
    "    engines: {node: '>=0.12.0'}",
    '',
    'snapshots:',
    '',
    `  '${ABSENT}@1.0.0':`,
    '    optional: true',
    '',
    '  is-number@7.0.0: {}',
    '',
  ].join('\n');
}

describe.skipIf(skip !== null)(`pnpm 11's release-age check (${skip ?? 'registry answers'})`, () => {
  it('builds a lockfile holding an absent optional package for another platform', async () => {
    const integrity = execFileSync('npm', ['view', 'is-number@7.0.0', 'dist.integrity'], {
      encoding: 'utf8',
    }).trim();
    const files = {
      'package.json': JSON.stringify({
        name: 'p11',
        version: '1.0.0',
        dependencies: { 'is-number': '7.0.0' },
        optionalDependencies: { [ABSENT]: '1.0.0' },
      }),
      'pnpm-lock.yaml': lockfile(integrity),
    };
    const root = writeProject(files);
    const lines: string[] = [];
    const env = await ensureJsEnvironment({
      engine,
      ledger: null,
      repoRoot: root,
      plan: planOf(root, { manager: 'pnpm', version: '11.13.1', lockfile: 'pnpm-lock.yaml', major: 24 }),
      mode: 'auto',
      owner: formatOwner(currentOwner()),
      log: (line) => lines.push(line),
    });
    made.push(env.image);
    expect(env.status, lines.join('\n')).toBe('built');
    expect(lines.join('\n')).not.toContain('ERR_PNPM_FETCH_404');
    const r = await runIn(
      sandbox,
      env.image,
      files,
      `node -e "console.log(require('is-number')(1))" && pnpm --version && ls node_modules/@piper-absent-fixture-3f9c 2>&1 | head -1`,
    );
    expect(r.exit_code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^true\n11\.13\.1\n.*No such file/);
  }, 900_000);

  it("keeps the lockfile's settings (dedupePeers) from pnpm-workspace.yaml for the frozen download", async () => {
    const integrity = execFileSync('npm', ['view', 'is-number@7.0.0', 'dist.integrity'], {
      encoding: 'utf8',
    }).trim();
    const files = {
      'package.json': JSON.stringify({
        name: 'p11s',
        version: '1.0.0',
        packageManager: 'pnpm@11.13.1',
        dependencies: { 'is-number': '7.0.0' },
        optionalDependencies: { [ABSENT]: '1.0.0' },
      }),
      '.nvmrc': '24\n',
      'pnpm-lock.yaml': lockfile(integrity, ['  dedupePeers: true']),
      'pnpm-workspace.yaml': 'dedupePeers: true\nminimumReleaseAge: 10080\n',
    };
    const root = writeProject(files);
    const plan = planJsEnvironment(root);
    expect(plan.manager).toMatchObject({ name: 'pnpm', version: '11.13.1' });
    const lines: string[] = [];
    const env = await ensureJsEnvironment({
      engine,
      ledger: null,
      repoRoot: root,
      plan,
      mode: 'auto',
      owner: formatOwner(currentOwner()),
      log: (line) => lines.push(line),
    });
    made.push(env.image);
    expect(env.status, lines.join('\n')).toBe('built');
    expect(lines.join('\n')).not.toContain('ERR_PNPM_LOCKFILE_CONFIG_MISMATCH');
    const r = await runIn(sandbox, env.image, files, `node -e "console.log(require('is-number')(1))"`);
    expect(r.exit_code, r.stderr).toBe(0);
    expect(r.stdout).toBe('true\n');
  }, 900_000);
});
