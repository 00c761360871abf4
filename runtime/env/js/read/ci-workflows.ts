// A project's GitHub Actions workflows (.github/workflows/*.yml, *.yaml, in name order) as data: each
// job's matrix, env and steps (`uses`, `with`, `run`, `env`), read with the `yaml` library under its
// limits (js-yaml.ts). Which step installs, which sets Node up and which runs the tests is for the
// readers above; nothing here is evaluated, and a `${{ }}` expression stays text.
import type { JsFiles } from './js-files.js';
import { isRecord } from './js-files.js';
import { readYamlText } from './js-yaml.js';

const DIR = '.github/workflows';
/** Workflows read at most: a repository with hundreds holds generated ones, not its CI. */
const MAX_WORKFLOWS = 40;

export interface CiStep {
  /** `.github/workflows/ci.yml job test step "Run tests"`. */
  from: string;
  uses?: string;
  with: Record<string, unknown>;
  run?: string;
  /** The workflow's, the job's and the step's env, in that order (later wins). */
  env: Array<[string, string]>;
  /** Its `if:` condition as written (never evaluated). */
  condition?: string;
  /** Where its `run:` runs, when not the repository's root (`working-directory`, the job's default). */
  workingDirectory?: string;
}

export interface CiJob {
  file: string;
  name: string;
  matrix: Record<string, unknown>;
  steps: CiStep[];
  /** The jobs of the same workflow that run before it (`needs:`). */
  needs: string[];
}

function needsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function envOf(value: unknown): Array<[string, string]> {
  if (!isRecord(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
      ? [[k, String(v)] as [string, string]]
      : [],
  );
}

/** A job's `defaults.run.working-directory`, or undefined. */
function defaultDirectory(spec: Record<string, unknown>): unknown {
  const run = isRecord(spec.defaults) && isRecord(spec.defaults.run) ? spec.defaults.run : {};
  return run['working-directory'];
}

function stepOf(
  step: unknown,
  index: number,
  where: string,
  env: Array<[string, string]>,
  jobDirectory: unknown,
): CiStep | null {
  if (!isRecord(step)) return null;
  const label = typeof step.name === 'string' ? `"${step.name}"` : `${index + 1}`;
  const dir = step['working-directory'] ?? jobDirectory;
  const workingDirectory = typeof dir === 'string' ? dir.replace(/^\.\/?/, '').replace(/\/$/, '') : '';
  return {
    ...(workingDirectory !== '' ? { workingDirectory } : {}),
    ...(typeof step.if === 'string' ? { condition: step.if } : {}),
    from: `${where} step ${label}`,
    ...(typeof step.uses === 'string' ? { uses: step.uses } : {}),
    with: isRecord(step.with) ? step.with : {},
    ...(typeof step.run === 'string' ? { run: step.run } : {}),
    env: [...env, ...envOf(step.env)],
  };
}

function jobsOf(path: string, doc: unknown): CiJob[] {
  if (!isRecord(doc) || !isRecord(doc.jobs)) return [];
  const jobs: CiJob[] = [];
  for (const [name, spec] of Object.entries(doc.jobs)) {
    if (!isRecord(spec) || !Array.isArray(spec.steps)) continue;
    const env = [...envOf(doc.env), ...envOf(spec.env)];
    const where = `${path} job ${name}`;
    const steps = spec.steps.flatMap((s, i) => stepOf(s, i, where, env, defaultDirectory(spec)) ?? []);
    const matrix = isRecord(spec.strategy) && isRecord(spec.strategy.matrix) ? spec.strategy.matrix : {};
    jobs.push({ file: path, name, matrix, steps, needs: needsOf(spec.needs) });
  }
  return jobs;
}

/** Every job of every workflow, in file then job order. */
export function readCiJobs(files: JsFiles, decisions: string[]): CiJob[] {
  const names = files.list(DIR).filter((n) => /\.ya?ml$/.test(n));
  if (names.length > MAX_WORKFLOWS)
    decisions.push(`${DIR}: only the first ${MAX_WORKFLOWS} of ${names.length} workflows read`);
  return names.slice(0, MAX_WORKFLOWS).flatMap((name) => {
    const path = `${DIR}/${name}`;
    const file = files.read(path, 'config');
    return file ? jobsOf(path, readYamlText(file.text, path, decisions)) : [];
  });
}

/** The command lines of a `run:` script: continuations joined, comments and blank lines left out. */
export function commandLines(script: string): string[] {
  return script
    .replace(/\\\r?\n\s*/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter((l) => l !== '');
}
