// A SWE-bench instance as a task of the A/B runner: its base tree (checked out once, copied fresh
// for every run), the problem statement as the issue, FAIL_TO_PASS / PASS_TO_PASS as the tests the
// runner grades, and for the simulated model the gold patch as edits. The agent is given the
// problem statement only: never the gold patch, the test patch, the hints or the test ids (the test
// patch's tests do not exist in its tree yet). Its sandboxes run in the instance's environment image.
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DebianRelease } from '../../runtime/env/plan/read/marker-env.js';
import type { Task } from '../ab/task-set.js';
import { instanceLanguage } from './environment.js';
import { goldEditsOf } from './gold-edits.js';
import { goldLabelsOf } from './gold-labels.js';
import type { SweInstance } from './instance-file.js';
import { patchedFiles } from './repos.js';

export interface SweTaskPart {
  instance: SweInstance;
  /** The Debian release of its sandboxes (undefined: the environment's choice). */
  debian: DebianRelease | undefined;
  /** instanceDigest: what a finished instance was run on. */
  digest: string;
  /** The instance's environment image, built from its base tree: the agent's sandboxes run in it. */
  image: string;
  /** The gold-label file its labels come from (gold-label-file.ts); null: derived from the gold patch. */
  labelsFile: string | null;
}

export type SweTask = Task & { swe: SweTaskPart };

export function isSweTask(task: Task): task is SweTask {
  return 'swe' in task && (task as SweTask).swe !== undefined;
}

function readBase(baseTree: string, file: string): string | null {
  const path = join(baseTree, file);
  try {
    return lstatSync(path).isFile() ? readFileSync(path, 'utf8') : null;
  } catch {
    return null;
  }
}

/**
 * The task for an instance whose base tree is at `baseTree` (inside `dir`, the instance's work dir);
 * `labels`: its hand-checked gold labels from the set's file, when the file names it.
 */
export function sweTask(
  part: SweTaskPart,
  dir: string,
  baseTree: string,
  labels: readonly string[] | null,
): SweTask {
  const { instance } = part;
  const goldPatchFile = join(dir, 'gold.patch');
  writeFileSync(goldPatchFile, instance.patch);
  // The simulated model's run_test target: the test files the test patch touches that the base
  // tree already has (the tests it adds are not there until grading).
  const testFiles = patchedFiles(instance.test_patch).filter((f) => existsSync(join(baseTree, f)));
  const goldEdits = goldEditsOf(instance.patch, (file) => readBase(baseTree, file), {
    javascript: instanceLanguage(instance, baseTree) === 'javascript',
  });
  return {
    id: instance.instance_id,
    title: instance.problem_statement.split('\n')[0]!.slice(0, 200),
    // A problem statement says what is wrong as a user sees it: it names a behaviour.
    category: 'names-behaviour',
    underspecified: false,
    fail_to_pass: instance.FAIL_TO_PASS,
    pass_to_pass: instance.PASS_TO_PASS,
    repro: testFiles.join(' ') || 'tests',
    // SWE-bench has no labels of the right first tools: the set's file has them checked by hand,
    // else they are derived from the gold patch.
    gold_labels: labels ?? goldLabelsOf(instance.problem_statement, goldEdits),
    gold_edits: goldEdits,
    dir,
    repoDir: baseTree,
    issue: instance.problem_statement,
    goldPatchFile,
    swe: part,
  } as SweTask;
}
