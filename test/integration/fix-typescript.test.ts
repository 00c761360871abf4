// `fix` on a small TypeScript project, headless, through the real CLI, engine, npm registry and
// Node: the repository is read as JavaScript/TypeScript (its index, gate, environment and runner),
// a scripted model's edit that breaks a type is refused by the project's own tsc, the corrected
// edit lands, the repro test (node:test, run by the environment's Node with types stripped) passes
// in the sandbox, the regression gate runs the project's whole suite (`node --test`) before and
// after and finds the other test file's tests passing on both sides: the run ends resolved, exit 0,
// its verdict read from node:test's own output. `undo` then gives the edited file its bytes back.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../policy/events.js';
import { runCli } from '../helpers/cli.js';
import { registryUnreachable, removeProjects } from '../helpers/js-env.js';
import { TS_EDITED, TS_PROJECT, TS_TARGET, tsFixModel, tsFixRepo } from '../helpers/ts-fix-project.js';

const skip = await registryUnreachable();
afterAll(removeProjects);

type Event = { type: string; [k: string]: unknown };

describe.skipIf(skip !== null)(`fix on a TypeScript project (${skip ?? 'registry answers'})`, () => {
  it('tsc refuses a type-breaking edit, the fix lands, node:test passes, the suite holds: resolved; undo restores', async () => {
    const repo = tsFixRepo();
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
    expect(observations).toContain('TS2322');
    expect(result.outcome, r.stderr.slice(-3000)).toBe('resolved');
    expect(r.code).toBe(0);
    expect(result.diff).toContain('+  return a + b;');
    expect(result.diff).not.toContain('String(');

    // The regression gate ran the project's own suite on both sides: the words tests passed before
    // the fix and after it, the repro (failing before) is not a regression.
    const suite = events.filter((e) => e.type === 'suite');
    expect(suite.map((e) => e.phase)).toEqual(['started', 'finished']);
    expect(suite[0]!.command).toContain('node --test');
    expect(result.suite).toMatchObject({ status: 'clean', regressions: [], failing_before: [] });
    expect(result.suite!.passed_both, JSON.stringify(result.suite)).toBe(2);

    // Undo: the edited file gets its committed bytes back, and the work tree is clean again.
    const undo = await runCli(['undo', result.run_id, '--repo', repo, '--json']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({
      ok: true,
      undone: 1,
      files: [{ path: TS_EDITED, edits: 1 }],
    });
    expect(readFileSync(join(repo, TS_EDITED), 'utf8')).toBe(TS_PROJECT[TS_EDITED]);
    expect(
      execFileSync('git', ['status', '--porcelain', '--', 'src', 'test'], { cwd: repo, encoding: 'utf8' }),
    ).toBe('');
  }, 1_200_000);
});
