// The real CLI before any command runs: --help and --version load none of the packages (no Ink,
// React, engine client, SQLite, nor zod inlined in the bundle), a command's chunk of the bundle
// (rolldown.config.mjs names it command-NAME-….js) is loaded only when it is chosen, and a
// mistyped command or flag gets one "did you mean" line and exit 2, not the whole usage text.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';
import { CLI, runCli } from '../helpers/cli.js';
import { spawnSync } from 'node:child_process';

const REGISTER = join(packageRoot(), 'test', 'fixtures', 'module-log', 'register.mjs');

/** Every module URL the CLI loads for `args`, through the module-log loader hooks. */
function modulesLoadedBy(args: string[]): string[] {
  const log = join(mkdtempSync(join(tmpdir(), 'piper-modules-')), 'modules.txt');
  const r = spawnSync(process.execPath, ['--import', REGISTER, CLI, ...args], {
    env: { ...process.env, PIPER_MODULE_LOG: log },
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(log, 'utf8').trim().split('\n');
}

/** Packages Node loads from node_modules, and those inlined in the bundle (its pkg-NAME chunks). */
const packagesIn = (urls: string[]) => [
  ...new Set(
    urls.flatMap(
      (u) =>
        /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ??
        /\/dist\/bundle\/pkg-(.+)-[\w-]{8}\.js$/.exec(u)?.[1] ??
        [],
    ),
  ),
];
const commandsIn = (urls: string[]) =>
  urls.flatMap((u) => /\/dist\/bundle\/command-(.+)-[\w-]{8}\.js$/.exec(u)?.[1] ?? []);

describe('start-up', () => {
  it('--help and --version load no package and no command module', () => {
    for (const flag of ['--help', '--version']) {
      const urls = modulesLoadedBy([flag]);
      expect(urls.some((u) => u.endsWith('/dist/bundle/main.js'))).toBe(true);
      expect(packagesIn(urls), flag).toEqual([]);
      expect(commandsIn(urls), flag).toEqual([]);
    }
  });

  it("a command's --help loads that command, and fix's loads no Ink or React", () => {
    const urls = modulesLoadedBy(['fix', '--help']);
    expect(commandsIn(urls)).toEqual(['fix']);
    expect(packagesIn(urls)).toContain('zod'); // the config's schema: the pkg- naming is seen
    expect(packagesIn(urls)).not.toContain('ink');
    expect(packagesIn(urls)).not.toContain('react');
  });

  it("a subcommand with flags of its own prints its own help: ab validate's, not ab's", async () => {
    const r = await runCli(['ab', 'validate', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: piper-agent ab validate --bench FILE\.jsonl --repos DIR/);
    const ab = await runCli(['ab', '--help']);
    expect(ab.stdout).toMatch(/^Usage: piper-agent ab --bench DIR --model M/);
  });
});

describe('did you mean', () => {
  it('an unknown command: one line naming the closest command, exit 2', async () => {
    const r = await runCli(['fxi', 'some issue']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("piper-agent: unknown command 'fxi'; did you mean fix?\n");
    expect(r.stdout).toBe('');
    const prefix = await runCli(['ledg']);
    expect(prefix.stderr).toBe("piper-agent: unknown command 'ledg'; did you mean ledger?\n");
    const far = await runCli(['publish']);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe(
      "piper-agent: unknown command 'publish'; piper-agent --help lists the commands\n",
    );
  });

  it('an unknown flag: one line naming the closest flag of that command, exit 2', async () => {
    const r = await runCli(['fix', '--tset', 'tests/test_x.py', 'issue']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('piper-agent fix: unknown option --tset; did you mean --test?\n');
    const undo = await runCli(['undo', 'r-1', '--jsno']);
    expect(undo.stderr).toBe('piper-agent undo: unknown option --jsno; did you mean --json?\n');
    const far = await runCli(['ledger', 'runs', '--colour']);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe(
      'piper-agent ledger: unknown option --colour; piper-agent ledger --help lists the options\n',
    );
  });

  it('an unknown config key: one line naming the key that was meant, exit 2', async () => {
    const home = mkdtempSync(join(tmpdir(), 'piper-xdg-'));
    mkdirSync(join(home, 'piper-agent'));
    const file = join(home, 'piper-agent', 'config.json');
    writeFileSync(file, '{"maxTurn": 5}\n');
    const r = await runCli(['config'], { env: { XDG_CONFIG_HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `piper-agent: bad configuration in ${file}: (top level): Unrecognized key: "maxTurn"; did you mean maxTurns?\n`,
    );
  });
});
