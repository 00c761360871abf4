// The text output of the one-shot commands (`execute`, `run-test`, `tool`) and their stderr lines
// hold no terminal control: a program's output could set the window title, clear the screen or
// reorder what is shown. Each is shown as a visible escape (runtime/text/inert.ts), piped and on a
// real terminal (tmux); `--json` stays exact and `execute --raw` writes the exact bytes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyAsGitRepo } from '../../runtime/host/git.js';
import { CLI, runCli } from '../helpers/cli.js';
import { tmuxSession } from '../helpers/tmux.js';

const HOSTILE = '\u001b]0;PWNED\u0007\u001b[2JX';
const SHOWN = '\\x1b]0;PWNED\\x07\\x1b[2JX';
const PROGRAM =
  'import sys\nprint("\\x1b]0;PWNED\\x07\\x1b[2JX")\nprint("\\x9b31m\\u202eerr", file=sys.stderr)\n';
// eslint-disable-next-line no-control-regex -- the point: none of them reaches the terminal
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

const scratch = mkdtempSync(join(tmpdir(), 'piper-inert-'));
const repo = (() => {
  const src = join(scratch, 'src');
  mkdirSync(join(src, 'tests'), { recursive: true });
  writeFileSync(
    join(src, 'tests', 'test_hostile.py'),
    `def test_hostile():\n    print("\\x1b]0;PWNED\\x07\\x1b[2JX")\n    assert False, "\\x9b2J\\u202e"\n`,
  );
  return copyAsGitRepo(src, join(scratch, 'repo'), 'fixture');
})();
const programFile = join(scratch, 'hostile.py');
writeFileSync(programFile, PROGRAM);
const base = ['--repo', repo, '--env', 'base'];

const terminal = tmuxSession(`piper-inert-${process.pid}`, 120_000);
afterAll(terminal.kill);

describe('one-shot commands write no terminal control', () => {
  it('execute: inert text piped, exact bytes with --raw, exact JSON with --json', async () => {
    const text = await runCli(['execute', ...base, '--file', programFile]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`${SHOWN}\n`);
    expect(text.stderr).toContain('\\x9b31m\\u202eerr\n');
    expect(text.stdout + text.stderr).not.toMatch(CONTROLS);

    const raw = await runCli(['execute', ...base, '--raw', '--file', programFile]);
    expect(raw.stdout).toBe(`${HOSTILE}\n`);
    // Only stdout is raw: stderr and the receipt lines stay inert.
    expect(raw.stderr).not.toMatch(CONTROLS);

    const json = await runCli(['execute', ...base, '--json', '--file', programFile]);
    const receipt = JSON.parse(json.stdout) as { stdout: string; stderr: string };
    expect(receipt.stdout).toBe(`${HOSTILE}\n`);
    expect(receipt.stderr).toBe('\u009b31m\u202eerr\n');
    expect(json.stdout).toBe(`${JSON.stringify(JSON.parse(json.stdout))}\n`);

    const both = await runCli(['execute', ...base, '--raw', '--json', '--code', 'print(1)']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --json or --raw, not both');
    const help = await runCli(['execute', '--help']);
    expect(help.stdout).toContain('--raw');
  }, 120_000);

  it('run-test: the tests output inert, --json exact', async () => {
    const text = await runCli(['run-test', 'tests/', ...base]);
    expect(text.code).toBe(4);
    expect(text.stdout).toContain(SHOWN);
    expect(text.stdout).toContain('\\x9b2J\\u202e');
    expect(text.stdout + text.stderr).not.toMatch(CONTROLS);
    const json = await runCli(['run-test', 'tests/', ...base, '--json']);
    const result = JSON.parse(json.stdout) as { output: string };
    expect(result.output).toContain(HOSTILE);
    expect(result.output).toContain('\u009b2J\u202e');
  }, 120_000);

  it('tool: the observation is JSON that parses to the same value and holds no raw control', async () => {
    const r = await runCli(['tool', 'execute', JSON.stringify({ code: PROGRAM }), '--repo', repo]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(CONTROLS);
    const observation = JSON.parse(r.stdout) as { data: { stdout: string; stderr: string } };
    expect(observation.data.stdout).toBe(`${HOSTILE}\n`);
    expect(observation.data.stderr).toBe('\u009b31m\u202eerr\n');
  }, 120_000);

  it('on a real terminal: the title stays, the screen is not cleared', async () => {
    const title = 'piper-inert-title';
    terminal.start(
      [
        `printf '\\033]2;${title}\\007'; echo BEFORE-THE-COMMANDS;`,
        `${process.execPath} ${CLI} execute ${base.join(' ')} --file ${programFile};`,
        `${process.execPath} ${CLI} run-test tests/ ${base.join(' ')};`,
        `${process.execPath} ${CLI} tool execute '${JSON.stringify({ code: 'print("\\x1b]0;PWNED\\x07\\x9b2J")' })}' --repo ${repo};`,
        'echo ALL-DONE; sleep 120',
      ].join(' '),
      200,
      80,
    );
    const screen = await terminal.waitFor('ALL-DONE');
    expect(screen).toContain('BEFORE-THE-COMMANDS');
    expect(screen).toContain(SHOWN);
    expect(terminal.tmux('display-message', '-p', '-t', terminal.name, '#{pane_title}').trim()).toBe(title);
  }, 240_000);
});
