// Every piperbench task, for real: in the sandbox, with the run_test primitive the agent uses, its
// FAIL_TO_PASS tests fail on the buggy repo and pass after gold.patch, and its PASS_TO_PASS tests
// pass both times. Its gold_edits, applied as plain string replacements inside the code index's
// entity spans and again through the real edit_entity primitive (lint gate included), give the same
// bytes as gold.patch. Every check works on a fresh temporary copy; the task directories stay as
// they are.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTasks, type Task } from '../../eval/ab/task-set.js';
import { editEntity } from '../../primitives/tools/edit-entity/effect.js';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import { runTest } from '../../primitives/tools/run-test/effect.js';
import type { RunTestResult } from '../../primitives/results/sandbox-results.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';
import { expectNoContainersLeft, makeSandbox } from '../helpers/sandbox.js';
import { createRun } from '../../runtime/ledger/runs.js';

const BENCH = join(packageRoot(), 'eval', 'tasks', 'piperbench');
const tasks = loadTasks(BENCH);
const scratch = mkdtempSync(join(tmpdir(), 'piperbench-'));
const sandbox = makeSandbox({ concurrency: 4 });
const ledger = Ledger.open(join(scratch, 'ledger.db'));
const runId = createRun(ledger, { kind: 'run_test', repo: BENCH, owner: 'test' });
const gate = new LintGate();

afterAll(async () => {
  await sandbox.close();
  await gate.close();
  ledger.close();
  await expectNoContainersLeft();
});

/** A fresh copy of the task's buggy repo. */
function copyRepo(task: Task, label: string): string {
  const dir = join(scratch, `${task.id}-${label}`);
  cpSync(task.repoDir, dir, { recursive: true });
  return dir;
}

/** The copy with gold.patch applied by git (outside any git repository: a plain patch). */
function patchedCopy(task: Task, label: string): string {
  const dir = copyRepo(task, label);
  execFileSync('git', ['apply', task.goldPatchFile], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  return dir;
}

/** Every file of a directory tree with its text (the task repos are UTF-8), keyed by relative path. */
function tree(dir: string): Map<string, string> {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) =>
    statSync(join(dir, p)).isFile(),
  );
  return new Map(files.sort().map((p) => [p, readFileSync(join(dir, p), 'utf8')]));
}

async function pytest(repoRoot: string, ids: string[]): Promise<RunTestResult> {
  const ctx = { sandbox, ledger, runId, owner: 'test', origin: 'user' as const, repoRoot };
  return (await runTest(ctx, { target: ids.join(' ') })).result;
}

/** The brief's check: `search` found exactly once in the entity's span, replaced there, in order. */
async function applyByReplacement(task: Task, dir: string): Promise<void> {
  const index = await CodeIndex.open(dir, ledger);
  for (const edit of task.gold_edits) {
    const entity = index.get(edit.selector);
    if (!entity) throw new Error(`${task.id}: the code index has no ${edit.selector}`);
    const file = join(dir, entity.path);
    const bytes = readFileSync(file);
    const span = bytes.subarray(entity.startByte, entity.endByte).toString('utf8');
    const at = span.indexOf(edit.search);
    if (at < 0 || span.indexOf(edit.search, at + 1) >= 0) {
      throw new Error(`${task.id}: search is not exactly once in ${edit.selector}`);
    }
    const before = bytes.subarray(0, entity.startByte).toString('utf8') + span.slice(0, at);
    const after = span.slice(at + edit.search.length) + bytes.subarray(entity.endByte).toString('utf8');
    writeFileSync(file, before + edit.replace + after);
    await index.refresh([entity.path]);
  }
}

describe.concurrent(
  'piperbench in the sandbox: FAIL_TO_PASS fails before and passes after gold.patch',
  () => {
    for (const task of tasks) {
      it(task.id, async ({ expect }) => {
        const buggy = copyRepo(task, 'buggy');
        const fixed = patchedCopy(task, 'fixed');
        const [failing, passing, after] = await Promise.all([
          pytest(buggy, task.fail_to_pass),
          pytest(buggy, task.pass_to_pass),
          pytest(fixed, [...task.fail_to_pass, ...task.pass_to_pass]),
        ]);
        // Every FAIL_TO_PASS test is collected and fails as a test (no collection error, no usage error).
        expect(failing, failing.output).toMatchObject({
          passed: false,
          exit_code: 1,
          timed_out: false,
          counts: { passed: 0, failed: task.fail_to_pass.length, errors: 0 },
        });
        expect(passing, passing.output).toMatchObject({
          passed: true,
          counts: { passed: task.pass_to_pass.length, failed: 0, errors: 0 },
        });
        expect(after, after.output).toMatchObject({
          passed: true,
          counts: { passed: task.fail_to_pass.length + task.pass_to_pass.length, failed: 0, errors: 0 },
        });
      });
    }
  },
);

describe('piperbench gold_edits: the same bytes as gold.patch', () => {
  for (const task of tasks) {
    it(task.id, async () => {
      const expected = tree(patchedCopy(task, 'gold-patch'));
      expect(expected).not.toEqual(tree(task.repoDir));

      const replaced = copyRepo(task, 'gold-replace');
      await applyByReplacement(task, replaced);
      expect(tree(replaced)).toEqual(expected);

      // The agent's own tool accepts the same calls: selectors resolve, the lint gate adds nothing.
      const edited = copyRepo(task, 'gold-edit-entity');
      const index = await CodeIndex.open(edited, ledger);
      for (const edit of task.gold_edits) {
        const result = await editEntity({ repoRoot: edited, index, lint: gate }, edit);
        expect(result, `${task.id} ${edit.selector}`).toMatchObject({
          ok: true,
          data: { committed: true, lint_clean: true },
        });
      }
      expect(tree(edited)).toEqual(expected);
    });
  }
});
