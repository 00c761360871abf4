// A SWE-bench instance in the dataset's own format (princeton-nlp/SWE-bench and its Verified subset
// use these field names), read from a JSONL file (one instance a line) or a JSON array. FAIL_TO_PASS
// and PASS_TO_PASS are JSON-encoded strings of lists, as the dataset stores them; a plain list is
// accepted too (some exports decode them). Every problem is reported with its line (or array index),
// field and instance id, so a broken set is fixed from the message alone.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Test ids as the dataset stores them: a JSON string of a list of strings (or the list itself). */
const TestList = z.union([z.string(), z.array(z.string())]).transform((value, ctx): string[] => {
  if (Array.isArray(value)) return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not a JSON-encoded list of test ids' });
    return z.NEVER;
  }
  const list = z.array(z.string().min(1)).safeParse(parsed);
  if (!list.success) {
    ctx.addIssue({ code: 'custom', message: 'not a JSON-encoded list of test id strings' });
    return z.NEVER;
  }
  return list.data;
});

function notBlank(message: string) {
  return z.string().refine((s) => s.trim() !== '', message);
}

export const SweInstanceSchema = z.object({
  // Names a work directory and a ledger key: no path separators, no leading dot.
  instance_id: z.string().regex(/^[\w][\w.+-]*$/, 'an id like owner__name-1234 (letters, digits, _.+-)'),
  repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name'),
  base_commit: z.string().regex(/^[0-9a-f]{7,40}$/, 'a commit id (7 to 40 lowercase hex digits)'),
  problem_statement: z.string().trim().min(1),
  // Checked, not trimmed: a diff's last line is often a context line of one space, and git calls a
  // diff whose last line lost it corrupt.
  patch: notBlank('the gold patch is empty'),
  test_patch: notBlank('the test patch is empty'),
  FAIL_TO_PASS: TestList.refine((l) => l.length > 0, 'FAIL_TO_PASS names no test'),
  PASS_TO_PASS: TestList,
  version: z.string().optional(),
  environment_setup_commit: z.string().optional(),
  hints_text: z.string().optional(),
  created_at: z.string().optional(),
  // The public harness's own test command (between its test-output markers) and the name of the
  // log parser that reads it: an instance carrying them is graded with them (test-command.ts).
  eval_script: z.string().optional(),
  log_parser: z.string().optional(),
});

export type SweInstance = z.infer<typeof SweInstanceSchema>;

/** Thrown when a set does not load: every problem, each naming where it is. */
export class InstanceSetError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'InstanceSetError';
  }
}

/** Whether `file` names a SWE-bench-format set (rather than a piperbench directory). */
export function isInstanceFile(file: string): boolean {
  return /\.(jsonl|json)$/i.test(file);
}

/** Every instance of a .jsonl or .json file, validated; throws InstanceSetError naming each problem. */
export function loadInstances(file: string): SweInstance[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InstanceSetError(file, [`cannot read it: ${(error as Error).message}`]);
  }
  const entries = /\.jsonl$/i.test(file) ? jsonlEntries(text) : jsonEntries(text);
  const problems: string[] = [];
  const instances: SweInstance[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    if ('error' in entry) {
      problems.push(`${entry.where}: ${entry.error}`);
      continue;
    }
    const parsed = SweInstanceSchema.safeParse(entry.value);
    const id = idOf(entry.value);
    const named = id ? ` (instance ${id})` : '';
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`${entry.where}${named}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
      continue;
    }
    const before = seen.get(parsed.data.instance_id);
    if (before) problems.push(`${entry.where}${named}: instance_id is also at ${before}`);
    seen.set(parsed.data.instance_id, entry.where);
    instances.push(parsed.data);
  }
  if (problems.length === 0 && instances.length === 0) problems.push('no instances');
  if (problems.length > 0) throw new InstanceSetError(file, problems);
  return instances;
}

type Entry = { where: string; value: unknown } | { where: string; error: string };

function jsonlEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `line ${i + 1}`;
    try {
      entries.push({ where, value: JSON.parse(line) as unknown });
    } catch (error) {
      entries.push({ where, error: `not JSON: ${(error as Error).message}` });
    }
  });
  return entries;
}

function jsonEntries(text: string): Entry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [{ where: '(file)', error: `not JSON: ${(error as Error).message}` }];
  }
  if (!Array.isArray(value)) return [{ where: '(file)', error: 'a .json set is an array of instances' }];
  return value.map((v, i) => ({ where: `[${i}]`, value: v as unknown }));
}

function idOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as Record<string, unknown>).instance_id;
  return typeof id === 'string' ? id.slice(0, 120) : null;
}

/** sha256 of everything that decides an instance's outcome: a changed instance is run and validated again. */
export function instanceDigest(instance: SweInstance, debian: string): string {
  const { hints_text: _hints, ...graded } = instance;
  return createHash('sha256')
    .update(JSON.stringify({ ...graded, debian }))
    .digest('hex');
}
