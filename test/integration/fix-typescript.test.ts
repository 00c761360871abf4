// `fix` on a small TypeScript project through the real CLI, engine, npm registry and Node, headless
// and in the TUI: the repository is read as JavaScript/TypeScript (its index, gate, environment and
// runner), a scripted model's edit that breaks a type is refused by the project's own tsc, the
// corrected edit lands, the repro test (node:test, run by the environment's Node with types
// stripped) passes in the sandbox, the regression gate runs the project's whole suite (`node
// --test`) before and after and finds the other test file's tests passing on both sides: resolved,
// exit 0. `undo` then gives the edited file its committed bytes back. Both runs are on one
// repository, one after the other (the first undone before the second): the environment image the
// first builds (named by the repository and its key) is the one the second takes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../policy/events.js';
import { CLI, runCli } from '../helpers/cli.js';
import { removeEnvImagesOf } from '../helpers/env-images.js';
import { registryUnreachable, removeProjects } from '../helpers/js-env.js';
import { tmuxSession } from '../helpers/tmux.js';
import { TS_EDITED, TS_PROJECT, TS_TARGET, tsFixModel, tsFixRepo } from '../helpers/ts-fix-project.js';
import { tuiFixCommand } from '../helpers/tui-fix-command.js';

const skip = await registryUnreachable();
const terminal = tmuxSession(`piper-tui-ts-${process.pid}`, 600_000);
let repo = '';

beforeAll(() => {
  if (skip === null) repo = tsFixRepo();
});
afterAll(async () => {
  terminal.kill();
  if (repo) await removeEnvImagesOf([repo]);
  removeProjects();
});

type Event = { type: string; [k: string]: unknown };

/** The edited file as committed, and nothing of the project's code or tests changed. */
function expectRestored(): void {
  expect(readFileSync(join(repo, TS_EDITED), 'utf8')).toBe(TS_PROJECT[TS_EDITED]);
  const status = execFileSync('git', ['status', '--porcelain', '--', 'src', 'test'], { cwd: repo });
  expect(status.toString()).toBe('');
}

describe.skipIf(skip !== null)(`fix on a TypeScript project (${skip ?? 'registry answers'})`, () => {
  it('headless: tsc refuses a type-breaking edit, the fix lands, node:test passes, the suite holds: resolved; undo restores', async () => {
    const r = await runCli([
      'fix',
      '--repo',
      repo,
      '--model',
      `script:${tsFixModel()}`,
      '--test',
      TS_TARGET,
      '--non-interactive',
      '--output',
      'stream-json',
      join(repo, 'ISSUE.md'),
    ]);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    const result = events.at(-1) as unknown as RunResult;
    const observations = JSON.stringify(events.filter((e) => e.type === 'observation'));
    expect(result.outcome, `${r.stderr.slice(-3000)}\n${r.stdout.slice(-3000)}`).toBe('resolved');
    expect(observations).toContain('TS2322');
    expect(r.code).toBe(0);
    expect(result.diff).toContain('+  return a + b;');
    expect(result.diff).not.toContain('String(');

    // The regression gate ran the project's own suite on both sides, read test by test: the words
    // tests passed before the fix and after it; the repro (failing before) is no regression.
    const suite = events.filter((e) => e.type === 'suite');
    expect(suite.map((e) => e.phase)).toEqual(['started', 'finished']);
    expect(suite[0]!.command).toContain('node --test');
    expect(result.suite).toMatchObject({ status: 'clean', regressions: [], failing_before: [] });
    expect(result.suite!.passed_both, JSON.stringify(result.suite)).toBe(2);

    const undo = await runCli(['undo', result.run_id, '--repo', repo, '--json']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({
      ok: true,
      undone: 1,
      files: [{ path: TS_EDITED, edits: 1 }],
    });
    expectRestored();
  }, 1_200_000);

  it('in the TUI: the tsc refusal, the node:test run, the suite, resolved and the undo command; typed, it restores', async () => {
    expectRestored();
    // A shell in the terminal, as a person has: the fix, then the undo the screen names.
    terminal.start("env -u CI NO_COLOR=1 PS1='$ ' bash --norc --noprofile", 100, 60);
    await terminal.waitFor('$');
    const fix = tuiFixCommand({
      env: '-u CI NO_COLOR=1',
      repo,
      model: `script:${tsFixModel()}`,
      approval: 'auto',
      test: TS_TARGET,
      hold: false,
    });
    terminal.type(fix);
    terminal.keys('Enter');
    await terminal.waitFor(/^EXIT=\d+$/m);
    const end = terminal.screen({ history: true, join: true });
    expect(end).toMatch(/^EXIT=0$/m);
    // The environment the headless run built, taken as it is.
    expect(end).toMatch(/environment: piper-env-\w+:\w+ \(reused\)/);
    expect(end).toMatch(/edit: error: edit refused by the lint gate: 1 new diagnostic\(s\): TS2322/);
    expect(end).toContain('edit: committed, lint clean');
    expect(end).toContain(`run_test target="${TS_TARGET}"`);
    expect(end).toContain('test: ✓ passed, exit 0 (1 passed, 0 failed, 0 errors)');
    expect(end).toContain('suite: 2 passed before and after');
    expect(end).toMatch(/^resolved: /m);
    expect(end).toContain('+  return a + b;');
    const runId = /^undo: piper-agent undo (r-\d{8}-\d{6}-[0-9a-f]+)$/m.exec(end)?.[1];
    expect(runId, end).toBeDefined();

    // The undo the screen names, typed into the same shell.
    terminal.type(`${process.execPath} ${CLI} undo ${runId} --repo ${repo}; echo UNDO=$?`);
    terminal.keys('Enter');
    const undone = await terminal.waitFor(/^UNDO=\d+$/m, 120_000);
    expect(undone).toMatch(/^UNDO=0$/m);
    expect(undone).toContain(`undid 1 edit(s) of run ${runId}:`);
    expect(undone).toContain(`restored ${TS_EDITED} (1 edit(s))`);
    expectRestored();
  }, 1_200_000);
});
