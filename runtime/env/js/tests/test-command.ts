// The project's own test command, as its CI runs it: the recipe's, else the CI workflows' test step
// (the one that runs the `test` script first, then one running another test script or a runner
// directly; end-to-end, browser, benchmark and lint scripts are not the suite), else package.json's
// `test` script (npm's placeholder is none). The line is expanded into the steps it runs
// (script-chain.ts); tooling steps and `npm link` are dropped, build and setup steps kept only before
// the last test step, and the build steps the CI job (or a job it needs) ran before its test step
// are kept too.
import { safeTestEnv } from '../../plan/tests/test-env.js';
import { commandLines, type CiJob, type CiStep } from '../read/ci-workflows.js';
import { runnerOfWords, type JsTestRunner } from './runner-kind.js';
import { expandLine, stepWords, type ChainContext, type ChainStep } from './script-chain.js';
import { innerWords } from './shell-words.js';
import { rootInstallLine } from './root-install.js';

export interface JsTestCommand {
  command: string | null;
  from: string;
  runner: JsTestRunner;
  env: Record<string, string>;
}

/** A workspace package's `scripts`. */
type WorkspaceScripts = Record<string, string>;

/** npm init's `test` script: it only fails. */
const NPM_PLACEHOLDER = /no test specified/;
/** Test scripts that are not the unit suite: they need a browser, a service, or only check. */
const NOT_THE_SUITE =
  /e2e|browser|playwright|cypress|puppeteer|bench|lint|types|tsd|smoke|integration|size|deno|bun/i;
const SCRIPT_RUN = /^(?:npm|pnpm|yarn)\s+(?:(?:run|run-script)\s+)?(?:--\S+\s+)*(test[\w:.-]*|t)\b/;

interface Candidate {
  line: string;
  from: string;
  env: Array<[string, string]>;
  /** Build steps the CI job ran before this line. */
  before: string[];
  rank: number;
}

/**
 * How much a CI line looks like the suite: 3 the `test` script, 2 another test script, a runner
 * started directly, or a script whose steps start one (`npm run unit`); 0 not a test line.
 */
function rankOf(line: string, ctx: ChainContext): number {
  const script = SCRIPT_RUN.exec(innerWords(line).join(' '))?.[1];
  if (script !== undefined) {
    if (NOT_THE_SUITE.test(script)) return 0;
    return script === 'test' || script === 't' ? 3 : 2;
  }
  if (runnerOfWords(innerWords(line))) return 2;
  if (NOT_THE_SUITE.test(line)) return 0;
  const steps = expandLine(line, ctx).filter((s) => s.kind === 'test');
  return steps.some((s) => runnerOfWords(stepWords(s)) !== null) ? 2 : 0;
}

/** Workflows and jobs that publish or document rather than test: their steps rank below the CI's. */
const ASIDE = /release|publish|deploy|docs|size|bench|preview|nightly|canary/i;
/** The usual names of the workflow that tests every push: among equals, its steps first. */
const MAIN_WORKFLOW = /\/(?:ci|test|tests|main|node|nodejs|nodejs-ci|node-ci|unit|checks?)\.ya?ml$/;

function workflowWeight(job: CiJob): number {
  if (ASIDE.test(job.file) || ASIDE.test(job.name)) return -1.5;
  return MAIN_WORKFLOW.test(job.file) ? 0.25 : 0;
}

/** A step only a Windows or macOS runner takes (`if: runner.os == 'Windows'`): the sandbox is Linux. */
const OTHER_OS = /==\s*'(?:windows|macos|win32|darwin)|startsWith\([^)]*'(?:windows|macos)/i;

function stepWeight(step: CiStep): number {
  return step.condition !== undefined && OTHER_OS.test(step.condition) ? -1 : 0;
}

const BUILD_LINE = /^(?:npm|pnpm|yarn)\s+(?:run\s+)?(?:-\S+\s+)*build(?:$|[\s:])/;

/** The build lines of a job's steps. */
function buildLines(job: CiJob): string[] {
  return job.steps
    .flatMap((step) => commandLines(step.run ?? ''))
    .filter((line) => BUILD_LINE.test(line) && !line.includes('${{'));
}

/**
 * The build lines of the jobs a job needs, the ones they need first: a test job that `needs` a
 * build job gets its output (an artifact) on a runner, and here the build runs before the tests.
 */
function neededBuilds(job: CiJob, jobs: CiJob[], seen = new Set<string>()): string[] {
  return job.needs.flatMap((name) => {
    const needed = jobs.find((j) => j.file === job.file && j.name === name);
    if (!needed || seen.has(name)) return [];
    seen.add(name);
    return [...neededBuilds(needed, jobs, seen), ...buildLines(needed)];
  });
}

function ciCandidates(jobs: CiJob[], ctx: ChainContext, decisions: string[]): Candidate[] {
  const found: Candidate[] = [];
  for (const job of jobs) {
    const before: string[] = neededBuilds(job, jobs);
    for (const step of job.steps) {
      for (const line of commandLines(step.run ?? '')) {
        const rank = rankOf(line, ctx);
        if (rank === 0) {
          if (BUILD_LINE.test(line) && !line.includes('${{')) before.push(line);
          continue;
        }
        if (step.workingDirectory !== undefined) {
          decisions.push(
            `${step.from}: \`${line}\` not used: it runs in ${step.workingDirectory}, not at the root`,
          );
          continue;
        }
        if (line.includes('${{')) {
          decisions.push(`${step.from}: \`${line}\` not used: it holds a \`\${{ }}\` expression`);
          continue;
        }
        found.push({
          line,
          from: step.from,
          env: step.env,
          before: [...before],
          rank: rank + workflowWeight(job) + stepWeight(step),
        });
      }
    }
  }
  return found.sort((a, b) => b.rank - a.rank);
}

/** The steps kept: up to the last test step, tooling and `npm link` left out, each drop a decision. */
function keptSteps(steps: ChainStep[], from: string, decisions: string[]): ChainStep[] {
  const last = steps.map((s) => s.kind === 'test' || s.kind === 'workspaces').lastIndexOf(true);
  const kept: ChainStep[] = [];
  for (const [i, step] of steps.entries()) {
    const why =
      step.kind === 'tool'
        ? 'a tooling step, not a test'
        : step.kind === 'link'
          ? 'it links the package globally'
          : step.kind === 'e2e'
            ? 'it needs a browser or a running service'
            : i > last
              ? 'it runs after the last test step'
              : null;
    if (why) decisions.push(`${from}: \`${step.text}\` dropped: ${why}`);
    else kept.push(step);
  }
  if (kept.some((s) => s.kind === 'build'))
    decisions.push(
      `${from}: build steps kept (${kept
        .filter((s) => s.kind === 'build')
        .map((s) => `\`${s.text}\``)
        .join(', ')}): they run before the tests, which may need their output`,
    );
  return last < 0 ? [] : kept;
}

/** The runners of the test steps among `steps`. */
function runnersIn(steps: ChainStep[]): Set<JsTestRunner> {
  return new Set(steps.filter((s) => s.kind === 'test').flatMap((s) => runnerOfWords(stepWords(s)) ?? []));
}

function workspaceRunners(ctx: ChainContext, workspaces: WorkspaceScripts[]): Set<JsTestRunner> {
  const runners = new Set<JsTestRunner>();
  for (const scripts of workspaces)
    if (scripts.test !== undefined)
      for (const r of runnersIn(expandLine('npm test', { ...ctx, scripts }))) runners.add(r);
  return runners;
}

/**
 * The runner the kept steps start; a step running every workspace's script (`pnpm -r test`) counts
 * as the runner of the workspace packages' own `test` scripts when they all agree.
 */
function runnerOf(
  steps: ChainStep[],
  ctx: ChainContext,
  workspaces: WorkspaceScripts[],
  decisions: string[],
): JsTestRunner {
  const own = runnersIn(steps);
  const runners =
    own.size === 0 && steps.some((s) => s.kind === 'workspaces') ? workspaceRunners(ctx, workspaces) : own;
  if (own.size === 0 && runners.size === 1)
    decisions.push(`the workspace packages' test scripts all run ${[...runners][0]}`);
  if (runners.size > 1)
    decisions.push(`test runners ${[...runners].join(', ')} all run: the reader gets 'unknown'`);
  return runners.size === 1 ? [...runners][0]! : 'unknown';
}

/** The command, or a null command with why in `from`. */
export function detectJsTestCommand(
  input: { recipeTest?: string; jobs: CiJob[]; ctx: ChainContext; workspaces?: WorkspaceScripts[] },
  decisions: string[],
): JsTestCommand {
  if (input.recipeTest !== undefined) {
    const runner = runnerOfWords(innerWords(input.recipeTest)) ?? 'unknown';
    decisions.push(`test command \`${input.recipeTest}\`: the recipe's (runner ${runner})`);
    return { command: input.recipeTest, from: '.piper/sandbox.toml test', runner, env: {} };
  }
  const testScript = input.ctx.scripts.test;
  const rootInstall = rootInstallLine(input.ctx.scripts, decisions);
  const candidates: Candidate[] = [...ciCandidates(input.jobs, input.ctx, decisions)];
  if (testScript !== undefined && !NPM_PLACEHOLDER.test(testScript))
    candidates.push({ line: 'npm test', from: 'package.json scripts.test', env: [], before: [], rank: 1 });
  for (const candidate of candidates) {
    const steps = [...candidate.before, candidate.line].flatMap((line) => expandLine(line, input.ctx));
    const kept = keptSteps(steps, candidate.from, decisions);
    if (!kept.length) continue;
    // A GitHub runner sets CI for every step: runners read it (no watch mode, no interactive UI).
    const ci: Array<[string, string]> = candidate.from.startsWith('.github/') ? [['CI', 'true']] : [];
    const env = safeTestEnv([...ci, ...candidate.env], candidate.from, decisions);
    const command = [...(rootInstall ? [rootInstall] : []), ...kept.map((s) => s.text)].join(' && ');
    decisions.push(`test command \`${command}\`: ${candidate.from} (\`${candidate.line}\`)`);
    const runner = runnerOf(kept, input.ctx, input.workspaces ?? [], decisions);
    decisions.push(
      runner === 'unknown'
        ? 'test runner unknown: its output is read as the console shows it'
        : `test runner ${runner}: its machine-readable output can be asked for`,
    );
    return { command, from: candidate.from, runner, env };
  }
  decisions.push('no test command: neither a CI step nor package.json scripts.test runs tests');
  return { command: null, from: 'none found', runner: 'unknown', env: {} };
}
