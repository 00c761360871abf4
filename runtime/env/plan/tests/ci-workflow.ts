// The test steps of a project's GitHub Actions workflows (.github/workflows/*.yml, *.yaml, in name
// order): every `run:` line, of any job's steps in file order, that runs tests, with the `env:` of
// the workflow, its job and its step (the step's wins). Which one is the suite is test-rank.ts's.
// Also the packages its lines install with apt (the runner's tools the suite then finds), which
// programs.ts takes only where its own table names them. Read as text with a small
// YAML reader; nothing in the file is evaluated. A line holding a `${{ }}` expression cannot run
// as written and is passed over, with the reason.
import { readYaml, type YamlValue } from '../read/mini-yaml.js';
import type { RepoReader } from '../read/repo-reader.js';
import { runsTests } from './test-runners.js';

const DIR = '.github/workflows';
/** A workflow is a page or two; a bigger file is not read at all. */
const MAX_WORKFLOW = 512 * 1024;

export interface WorkflowStep {
  /** `.github/workflows/ci.yml job test step "Run tests"`. */
  from: string;
  line: string;
  env: Array<[string, string]>;
}

type Map = { [key: string]: YamlValue };

function isMap(value: YamlValue | null | undefined): value is Map {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function envOf(value: YamlValue | undefined): Array<[string, string]> {
  if (!isMap(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    typeof v === 'string' ? [[k, v] as [string, string]] : [],
  );
}

/** The lines of a `run:` script that are commands: comments and continuations folded away. */
function commandLines(script: string): string[] {
  return script
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter((l) => l !== '');
}

/** Every command line of every job's `run:` steps, in file and step order. */
function workflowRunLines(reader: RepoReader, decisions: string[]): WorkflowStep[] {
  const found: WorkflowStep[] = [];
  const files = reader.list(DIR).filter((n) => /\.ya?ml$/.test(n));
  for (const name of files) {
    const path = `${DIR}/${name}`;
    const text = reader.readText(path, 'dependencies');
    if (text === null) continue;
    if (text.length > MAX_WORKFLOW) {
      decisions.push(`${path}: not read (over ${MAX_WORKFLOW / 1024} KiB)`);
      continue;
    }
    const doc = readYaml(text);
    if (!isMap(doc) || !isMap(doc.jobs)) {
      decisions.push(`${path}: not read as a workflow (no jobs mapping this reader understands)`);
      continue;
    }
    for (const [job, spec] of Object.entries(doc.jobs)) {
      if (!isMap(spec) || !Array.isArray(spec.steps)) continue;
      for (const [index, step] of spec.steps.entries()) {
        if (!isMap(step) || typeof step.run !== 'string') continue;
        const label = typeof step.name === 'string' ? `"${step.name}"` : `${index + 1}`;
        const from = `${path} job ${job} step ${label}`;
        const env = [...envOf(doc.env), ...envOf(spec.env), ...envOf(step.env)];
        for (const line of commandLines(step.run)) found.push({ from, line, env });
      }
    }
  }
  return found;
}

export function workflowTestSteps(reader: RepoReader, decisions: string[]): WorkflowStep[] {
  const found: WorkflowStep[] = [];
  for (const step of workflowRunLines(reader, decisions)) {
    if (!runsTests(step.line)) continue;
    if (step.line.includes('${{')) {
      decisions.push(`${step.from}: \`${step.line}\` not used: it holds a \`\${{ }}\` expression`);
      continue;
    }
    found.push(step);
  }
  return found;
}

export interface CiInstall {
  /** The package name as the line writes it (not yet checked against anything). */
  name: string;
  from: string;
}

/**
 * `apt-get install -y graphviz`, `sudo DEBIAN_FRONTEND=x apt install --no-install-recommends a b`:
 * the names after install. A variable's name holds no `=`, so a hostile line of `=`s is read in
 * linear time.
 */
const APT_INSTALL =
  /^(?:sudo\s+(?:-\S+\s+)*)?(?:[A-Za-z_]\w*=\S*\s+)*apt(?:-get)?\s+(?:-\S+\s+)*install\s+(.*)$/;

/**
 * The packages the workflows' `run:` lines install with apt, each a word as written, in order: a CI
 * runner has them when the suite runs. Words that are options, versions or expressions are not names.
 */
export function workflowAptInstalls(reader: RepoReader): CiInstall[] {
  const found: CiInstall[] = [];
  for (const { from, line } of workflowRunLines(reader, [])) {
    for (const part of line.split(/&&|;|\|\|/)) {
      const install = APT_INSTALL.exec(part.trim());
      if (!install) continue;
      for (const word of install[1]!.split(/\s+/)) {
        if (/^[a-z0-9][a-z0-9+.-]*$/.test(word)) found.push({ name: word, from });
      }
    }
  }
  return found;
}
