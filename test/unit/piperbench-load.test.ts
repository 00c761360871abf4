// The piperbench task set loads, is the intended mix, and its gold data points at code that
// exists: every gold edit's selector names a def/class in its file, and a task's first gold label
// agrees with what its issue names (a symbol of the repo → search_symbol; only behaviour → search_code).
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CATEGORIES,
  inspectTasks,
  loadTasks,
  TaskSchema,
  TaskSetError,
  type Task,
} from '../../eval/ab/task-set.js';
import { packageRoot } from '../../runtime/package-root.js';

const BENCH = join(packageRoot(), 'eval', 'tasks', 'piperbench');
const tasks = loadTasks(BENCH);

/** The file a selector lives in and its qualified name, by the selector rule of docs/architecture.md. */
function resolveSelector(repoDir: string, selector: string): { file: string; qualified: string[] } | null {
  const parts = selector.split('.');
  for (let i = parts.length; i > 0; i--) {
    const base = parts.slice(0, i).join('/');
    for (const file of [`${base}.py`, `${base}/__init__.py`]) {
      if (existsSync(join(repoDir, file))) return { file, qualified: parts.slice(i) };
    }
  }
  return null;
}

/** Whether `def`/`class` names nest in the source as `qualified` says (4-space indentation). */
function definesNested(source: string, qualified: string[]): boolean {
  let from = 0;
  for (const [depth, name] of qualified.entries()) {
    const re = new RegExp(
      `^ {${depth * 4}}(?:async\\s+)?(?:def|class)\\s+${name.replace(/\W/g, '\\$&')}\\b`,
      'gm',
    );
    re.lastIndex = from;
    const match = re.exec(source);
    if (!match) return false;
    from = match.index + match[0].length;
  }
  return true;
}

function pythonFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.py'))
    .map((p) => join(dir, p));
}

/** Names of every def and class in the repo, tests excluded: what search_symbol would find. */
function definedNames(task: Task): Set<string> {
  const names = new Set<string>();
  for (const file of pythonFiles(task.repoDir).filter((f) => !f.includes('/tests/'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:async\s+)?(?:def|class)\s+(\w+)/gm))
      names.add(m[1]!);
  }
  return names;
}

/** Identifiers the issue writes as code (inline or fenced) or as dotted names (the symbol regex). */
function codeIdentifiers(issue: string): string[] {
  const fenced = [...issue.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const rest = issue.replace(/```[\s\S]*?```/g, '');
  const inline = [...rest.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const dotted = [...issue.matchAll(/[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+/g)].map((m) => m[0]);
  return [...fenced, ...inline, ...dotted].flatMap((text) => text.match(/[A-Za-z_]\w*/g) ?? []);
}

describe('the piperbench task set', () => {
  it('loads every task: at least 20, unique ids, at least 3 under-specified', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(20);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
    expect(tasks.filter((t) => t.underspecified).length).toBeGreaterThanOrEqual(3);
    for (const task of tasks) {
      expect(task.issue.trim().length, task.id).toBeGreaterThan(50);
      expect(task.repro, task.id).toBe(task.fail_to_pass.join(' '));
    }
  });

  it('lists every test of a repo as FAIL_TO_PASS or PASS_TO_PASS', () => {
    for (const task of tasks) {
      const testsDir = join(task.repoDir, 'tests');
      const defined = pythonFiles(testsDir).flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/^def (test_\w+)\(/gm)].map(
          (m) => `tests/${file.slice(testsDir.length + 1)}::${m[1]}`,
        ),
      );
      expect([...task.fail_to_pass, ...task.pass_to_pass].sort(), task.id).toEqual(defined.sort());
    }
  });

  it('covers every category of the mix', () => {
    const present = new Set(tasks.map((t) => t.category));
    expect([...CATEGORIES].filter((c) => !present.has(c))).toEqual([]);
  });

  it('keeps every repo small: a package, tests/, 2 to 6 files', () => {
    for (const task of tasks) {
      const files = readdirSync(task.repoDir, { recursive: true, encoding: 'utf8' }).filter((p) =>
        statSync(join(task.repoDir, p)).isFile(),
      );
      expect(files.length, task.id).toBeGreaterThanOrEqual(2);
      expect(files.length, task.id).toBeLessThanOrEqual(6);
      expect(
        files.some((f) => f.startsWith('tests/test_')),
        task.id,
      ).toBe(true);
      expect(
        files.some((f) => f.endsWith('/__init__.py') && !f.startsWith('tests/')),
        task.id,
      ).toBe(true);
    }
  });

  it('names, in every gold edit, a def or class that exists in its file and contains the search string', () => {
    let checked = 0;
    for (const task of tasks) {
      for (const edit of task.gold_edits) {
        const where = resolveSelector(task.repoDir, edit.selector);
        expect(where, `${task.id}: ${edit.selector}`).not.toBeNull();
        const source = readFileSync(join(task.repoDir, where!.file), 'utf8');
        expect(definesNested(source, where!.qualified), `${task.id}: ${edit.selector}`).toBe(true);
        expect(source.includes(edit.search), `${task.id}: search of ${edit.selector}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(tasks.length);
  });

  it('labels the first decision by what the issue names: a repo symbol or only behaviour', () => {
    for (const task of tasks.filter((t) => !t.underspecified)) {
      const named = codeIdentifiers(task.issue).filter((name) => definedNames(task).has(name));
      const first = task.gold_labels[0];
      expect(['search_symbol', 'search_code'], task.id).toContain(first);
      if (first === 'search_symbol') expect(named.length, `${task.id} names no symbol`).toBeGreaterThan(0);
      else expect(named, `${task.id} names a symbol`).toEqual([]);
    }
    const firsts = new Set(tasks.map((t) => t.gold_labels[0]));
    expect([...firsts].sort()).toEqual(['ask_user', 'search_code', 'search_symbol']);
  });

  it('ships a gold patch that touches exactly the files of the gold edits', () => {
    for (const task of tasks) {
      const patch = readFileSync(task.goldPatchFile, 'utf8');
      const touched = [...patch.matchAll(/^\+\+\+ b\/(\S+)$/gm)].map((m) => m[1]);
      const edited = [
        ...new Set(task.gold_edits.map((e) => resolveSelector(task.repoDir, e.selector)!.file)),
      ].sort();
      expect(touched.sort(), task.id).toEqual(edited);
      expect(patch, task.id).toMatch(/^--- a\//m);
    }
  });
});

describe('task validation', () => {
  const good = JSON.parse(readFileSync(join(tasks[0]!.dir, 'task.json'), 'utf8')) as Record<string, unknown>;

  it('accepts a valid task.json and refuses broken ones with the reason', () => {
    expect(TaskSchema.safeParse(good).success).toBe(true);
    const refusal = (patch: Record<string, unknown>) => {
      const result = TaskSchema.safeParse({ ...good, ...patch });
      return result.success
        ? 'accepted'
        : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(refusal({ category: 'typo' })).toMatch(/^category: /);
    expect(refusal({ gold_labels: ['bash', 'read_entity', 'edit_entity'] })).toMatch(/^gold_labels\.0: /);
    expect(refusal({ underspecified: true })).toBe(
      'gold_labels: an under-specified task is labelled ["ask_user"]; clarification: an under-specified task needs the clarification',
    );
    expect(refusal({ gold_edits: [{ selector: 'a.b', search: 'x'.repeat(401), replace: '' }] })).toBe(
      'gold_edits.0.search: search is longer than 400 characters',
    );
    expect(refusal({ fail_to_pass: ['tests/test_x.py::test_a[1]'] })).toMatch(/^fail_to_pass\.0: a node id/);
    expect(refusal({ extra: 1 })).toMatch(/extra/);
  });

  it('reports every broken task of a set with its directory, and loadTasks refuses the set', () => {
    const root = mkdtempSync(join(tmpdir(), 'piperbench-bad-'));
    try {
      cpSync(tasks[0]!.dir, join(root, 'tasks', tasks[0]!.id), { recursive: true });
      cpSync(tasks[1]!.dir, join(root, 'tasks', 'pb-999-renamed'), { recursive: true });
      const broken = join(root, 'tasks', tasks[2]!.id);
      cpSync(tasks[2]!.dir, broken, { recursive: true });
      rmSync(join(broken, 'gold.patch'));
      writeFileSync(join(root, 'tasks', 'README.txt'), 'not a task');
      const { tasks: loaded, problems } = inspectTasks(root);
      expect(loaded.map((t) => t.id)).toEqual([tasks[0]!.id]);
      expect(problems).toEqual([
        { path: broken, message: 'gold.patch is missing' },
        {
          path: join(root, 'tasks', 'pb-999-renamed'),
          message: `id ${tasks[1]!.id} differs from the directory name`,
        },
      ]);
      expect(() => loadTasks(root)).toThrow(TaskSetError);
      expect(inspectTasks(join(root, 'tasks')).tasks.length).toBe(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
