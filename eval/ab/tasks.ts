// The A/B runner's view of the task set: the tasks task-set.ts loads and validates, the subset
// --tasks names, a digest per task so a changed task is run again instead of read back, and what
// the simulated model is given of a task.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTasks, TaskSetError, type Task } from './task-set.js';
import type { SimEdit, SimTask } from '../sim/sim-model.js';
import { isSweTask } from '../swebench/swe-task.js';
import { listRepoFiles } from '../../runtime/workspace/repo-listing.js';
import { UsageError } from '../../core/exit-codes.js';

export type { Task };

/** The tasks of the bench, in id order, or the ones `ids` names (each must exist). */
export function selectTasks(benchDir: string, ids: readonly string[] | null): Task[] {
  let all: Task[];
  try {
    all = loadTasks(benchDir);
  } catch (error) {
    // A bench that does not load is bad input, with every problem named: exit 2, not a crash.
    if (error instanceof TaskSetError) throw new UsageError(`--bench ${benchDir}: ${error.message}`);
    throw error;
  }
  if (!ids) return all;
  const byId = new Map(all.map((t) => [t.id, t]));
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length > 0)
    throw new UsageError(
      `--tasks names unknown task(s): ${unknown.join(', ')} (the bench has ${all.length}, e.g. ${all[0]?.id ?? 'none'})`,
    );
  return [...new Set(ids)].map((id) => byId.get(id)!).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** Every regular file of a task's directory, relative, '/' separators, sorted: the repository listing's. */
export function filesOf(dir: string): string[] {
  return listRepoFiles(dir).paths.filter((path) => lstatSync(join(dir, path)).isFile());
}

/** sha256 over task.json, issue.md, gold.patch and every repo file: what a finished instance was run on. */
export function taskDigest(task: Task): string {
  if (isSweTask(task)) return task.swe.digest;
  const hash = createHash('sha256');
  for (const name of ['task.json', 'issue.md', 'gold.patch'])
    hash
      .update(`${name}\0`)
      .update(readFileSync(join(task.dir, name)))
      .update('\0');
  for (const file of filesOf(task.repoDir))
    hash
      .update(`repo/${file}\0`)
      .update(readFileSync(join(task.repoDir, file)))
      .update('\0');
  return hash.digest('hex');
}

/** The task as the simulated model gets it, with each gold edit's line prefix from the original file. */
export function simTaskOf(task: Task): SimTask {
  const sources = filesOf(task.repoDir)
    .filter((f) => f.endsWith('.py'))
    .map((f) => ({
      module: f
        .slice(0, -3)
        .replace(/\//g, '.')
        .replace(/\.__init__$/, ''),
      text: readFileSync(join(task.repoDir, f), 'utf8'),
    }));
  const goldEdits: SimEdit[] = task.gold_edits.map((edit) => {
    const owner =
      sources.find((s) => edit.selector.startsWith(s.module) && s.text.includes(edit.search)) ??
      sources.find((s) => s.text.includes(edit.search));
    const at = owner ? owner.text.indexOf(edit.search) : -1;
    return {
      ...edit,
      linePrefix: owner && at >= 0 ? owner.text.slice(owner.text.lastIndexOf('\n', at - 1) + 1, at) : '',
    };
  });
  return {
    id: task.id,
    underspecified: task.underspecified,
    repro: task.repro,
    goldLabels: task.gold_labels,
    goldEdits,
  };
}
