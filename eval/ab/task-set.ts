// A task set for the A/B runner (eval/tasks/piperbench is the bundled one): every task directory holds
// `task.json`, `issue.md`, `gold.patch` and `repo/`. The tasks are data; this is the product code that
// reads them, so the product never imports bench/. The schema of task.json is declared once here;
// loading checks every task against it and against its own directory, so a broken task is reported
// with its path and reason instead of surfacing later as a puzzling A/B result (docs/policy.md, "The
// A/B protocol").
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { RESERVED_NAMES, TOOL_NAMES } from '../../policy/registry.js';

/** The task mix: bug kinds, plus the two ways an issue can point at the code (by symbol or by behaviour). */
export const CATEGORIES = [
  'off-by-one',
  'wrong-default',
  'exception-handling',
  'parsing',
  'unicode',
  'state-across-calls',
  'cross-file',
  'names-symbol',
  'names-behaviour',
] as const;

/** What a decision point can be: one of the six tools, or a reserved name. */
const GOLD_ACTIONS: readonly string[] = [...TOOL_NAMES, ...RESERVED_NAMES];
const goldActionSchema = z.string().refine((action) => GOLD_ACTIONS.includes(action), {
  error: () => `Invalid option: expected one of ${GOLD_ACTIONS.map((a) => JSON.stringify(a)).join('|')}`,
});

/** The m of the tool-selection measure: gold labels cover the first m decision points (docs/policy.md). */
const GOLD_DECISIONS = 3;

/** The registry's caps for edit_entity (docs/policy.md), counted in code points as Python's len(). */
const SEARCH_CAP = 400;
const REPLACE_CAP = 2000;
const codePoints = (s: string) => [...s].length;

/** A plain pytest node id inside the task repo's tests/ (no parametrize brackets, no spaces). */
const NodeIdSchema = z.string().regex(/^tests\/[\w/.-]+\.py::\w+$/, 'a node id like tests/test_x.py::test_y');

const SelectorSchema = z
  .string()
  .regex(/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/, 'a dotted selector like pkg.mod.Class.method');

const GoldEditSchema = z
  .object({
    selector: SelectorSchema,
    search: z
      .string()
      .min(1)
      .refine((s) => codePoints(s) <= SEARCH_CAP, `search is longer than ${SEARCH_CAP} characters`),
    replace: z
      .string()
      .refine((s) => codePoints(s) <= REPLACE_CAP, `replace is longer than ${REPLACE_CAP} characters`),
  })
  .strict();

export const TaskSchema = z
  .object({
    id: z.string().regex(/^pb-\d{3}-[a-z0-9-]+$/, 'an id like pb-001-offbyone-paginate'),
    title: z.string().min(1),
    category: z.enum(CATEGORIES),
    /** Asking is the right first move: the issue admits fixes that the tests tell apart. */
    underspecified: z.boolean(),
    fail_to_pass: z.array(NodeIdSchema).min(1),
    pass_to_pass: z.array(NodeIdSchema),
    /** What the agent's --test gets: usually fail_to_pass joined by spaces. */
    repro: z.string().trim().min(1),
    gold_labels: z.array(goldActionSchema).min(1).max(GOLD_DECISIONS),
    /** The gold patch as edit_entity calls, applied in order. */
    gold_edits: z.array(GoldEditSchema).min(1),
    /** For an under-specified task: the answer the reporter gives when asked. */
    clarification: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((task, ctx) => {
    const issue = (message: string, path: string) => ctx.addIssue({ code: 'custom', message, path: [path] });
    const both = task.fail_to_pass.filter((id) => task.pass_to_pass.includes(id));
    if (both.length > 0) issue(`in both fail_to_pass and pass_to_pass: ${both.join(', ')}`, 'pass_to_pass');
    if (task.underspecified) {
      if (task.gold_labels.length !== 1 || task.gold_labels[0] !== 'ask_user') {
        issue('an under-specified task is labelled ["ask_user"]', 'gold_labels');
      }
      if (task.clarification === undefined)
        issue('an under-specified task needs the clarification', 'clarification');
    } else {
      if (task.gold_labels.length !== GOLD_DECISIONS) {
        issue(`a task that can be fixed has ${GOLD_DECISIONS} gold labels`, 'gold_labels');
      }
      if (task.clarification !== undefined)
        issue('only an under-specified task has a clarification', 'clarification');
    }
  });

type TaskFile = z.infer<typeof TaskSchema>;

export interface Task extends TaskFile {
  /** The task directory, absolute. */
  dir: string;
  /** The buggy repository; never run or edit it in place: work on a copy. */
  repoDir: string;
  /** issue.md, verbatim: what the agent is given. */
  issue: string;
  /** The gold fix as a unified diff relative to repoDir (`git apply` from inside a copy). */
  goldPatchFile: string;
}

export interface TaskProblem {
  /** The task directory (or the bench directory for set-wide problems). */
  path: string;
  message: string;
}

/** Thrown by loadTasks when any task is invalid; `problems` lists every one of them. */
export class TaskSetError extends Error {
  constructor(readonly problems: TaskProblem[]) {
    super(`invalid piperbench task set:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
    this.name = 'TaskSetError';
  }
}

/** `dir` is the bench directory (holding tasks/) or the tasks directory itself. */
function tasksDirectory(dir: string): string {
  const nested = join(resolve(dir), 'tasks');
  return existsSync(nested) && statSync(nested).isDirectory() ? nested : resolve(dir);
}

/** Every task that loads, and every problem found, without throwing. Tasks are sorted by id. */
export function inspectTasks(dir: string): { tasks: Task[]; problems: TaskProblem[] } {
  const root = tasksDirectory(dir);
  const tasks: Task[] = [];
  const problems: TaskProblem[] = [];
  if (!existsSync(root)) return { tasks, problems: [{ path: root, message: 'no such directory' }] };
  const dirs = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(root, d.name))
    .sort();
  for (const taskDir of dirs) {
    const loaded = loadTask(taskDir);
    if ('problems' in loaded)
      problems.push(...loaded.problems.map((message) => ({ path: taskDir, message })));
    else tasks.push(loaded.task);
  }
  const seen = new Set<string>();
  for (const task of tasks) {
    if (seen.has(task.id)) problems.push({ path: task.dir, message: `duplicate id ${task.id}` });
    seen.add(task.id);
  }
  if (dirs.length === 0) problems.push({ path: root, message: 'no task directories' });
  tasks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { tasks, problems };
}

/** Every task of the set, validated; throws TaskSetError naming each invalid task. */
export function loadTasks(dir: string): Task[] {
  const { tasks, problems } = inspectTasks(dir);
  if (problems.length > 0) throw new TaskSetError(problems);
  return tasks;
}

function loadTask(dir: string): { task: Task } | { problems: string[] } {
  const file = join(dir, 'task.json');
  if (!existsSync(file)) return { problems: ['task.json is missing'] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { problems: [`task.json is not JSON: ${(error as Error).message}`] };
  }
  const parsed = TaskSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((i) => `task.json ${i.path.join('.') || '(root)'}: ${i.message}`),
    };
  }
  const data = parsed.data;
  const problems: string[] = [];
  const repoDir = join(dir, 'repo');
  const issueFile = join(dir, 'issue.md');
  const goldPatchFile = join(dir, 'gold.patch');
  if (basename(dir) !== data.id) problems.push(`id ${data.id} differs from the directory name`);
  if (!existsSync(repoDir)) problems.push('repo/ is missing');
  if (!existsSync(issueFile)) problems.push('issue.md is missing');
  if (!existsSync(goldPatchFile)) problems.push('gold.patch is missing');
  if (problems.length > 0) return { problems };
  for (const id of [...data.fail_to_pass, ...data.pass_to_pass]) {
    const testFile = id.split('::')[0]!;
    if (!existsSync(join(repoDir, testFile))) problems.push(`${id}: ${testFile} is not in repo/`);
  }
  const issue = readFileSync(issueFile, 'utf8');
  if (issue.trim() === '') problems.push('issue.md is empty');
  if (readFileSync(goldPatchFile, 'utf8').trim() === '') problems.push('gold.patch is empty');
  if (problems.length > 0) return { problems };
  return { task: { ...data, dir, repoDir, issue, goldPatchFile } };
}
