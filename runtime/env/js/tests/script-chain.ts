// A test command line expanded into the steps it really runs: `npm test`, `npm run test:unit -- -x`,
// `pnpm test`, `yarn test`, `yarn jest`, `run-s lint test:*` become the scripts' own commands
// (package.json `scripts`, recursively, with npm's and yarn 1's `pre` hooks), so the sandbox runs
// the tests without the package manager and the chain can be told apart step by step (step-kind.ts).
// A command that runs every workspace's script (`pnpm -r test`, `lerna run test`, `turbo run test`)
// is one step kept as written.
import { innerWords, splitSteps, withoutLauncher, words } from './shell-words.js';
import { kindOfScript, kindOfWords, type StepKind } from './step-kind.js';

export interface ChainStep {
  text: string;
  kind: StepKind | 'workspaces';
  /** The script that ran it (`test:unit`), or '' for the line itself. */
  script: string;
}

export interface ChainContext {
  scripts: Record<string, string>;
  /** Whether the manager runs a script's `pre` hook before it (npm and yarn 1 do; pnpm and berry not). */
  preHooks: boolean;
}

const MAX_DEPTH = 8;
const MANAGERS = new Set(['npm', 'pnpm', 'yarn']);
const RUN = new Set(['run', 'run-script', 'rum', 'urn']);
const NPM_TEST = new Set(['test', 't', 'tst']);
const WORKSPACE_FLAGS =
  /^(?:-r|--recursive|--filter|-F|--workspaces|-ws|--workspace|-w|--filter=.*|--workspace=.*)$/;
const QUIET = /^(?:--if-present|--silent|-s|--quiet|-q|--loglevel=.*)$/;
const WORKSPACE_TOOLS = new Set(['lerna', 'turbo', 'nx', 'ultra', 'wsrun', 'nps']);

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The script a manager word list runs and its extra arguments, or null for another command. */
function scriptCall(w: string[], ctx: ChainContext): { name: string; args: string[] } | null {
  const [program = '', ...rest] = w;
  if (!MANAGERS.has(program)) return null;
  const args = rest.filter((word) => !QUIET.test(word));
  const [first = '', ...after] = args;
  let name: string;
  let tail: string[];
  if (NPM_TEST.has(first)) [name, tail] = ['test', after];
  else if (RUN.has(first)) [name, tail] = [after[0] ?? '', after.slice(1)];
  else if (program !== 'npm' && first !== '' && !first.startsWith('-')) [name, tail] = [first, after];
  else return null;
  if (program !== 'npm' && !(name in ctx.scripts) && !NPM_TEST.has(first)) {
    // `yarn jest` / `pnpm vitest run`: the package's own program, no script of that name.
    return { name: `bin:${name}`, args: tail };
  }
  // npm reads options before `--` as its own configuration (`npm test --ignore-scripts`); only what
  // follows `--` reaches the script. pnpm and yarn pass every word after the name.
  const dashes = tail.indexOf('--');
  if (program === 'npm') return { name, args: dashes < 0 ? [] : tail.slice(dashes + 1) };
  return { name, args: tail[0] === '--' ? tail.slice(1) : tail };
}

/** The scripts pnpm's `run /regex/` runs (each whose name matches), in the manifest's order. */
function regexNames(name: string, ctx: ChainContext): string[] | null {
  const m = /^\/(.{1,100})\/$/.exec(name);
  if (!m) return null;
  try {
    const regex = new RegExp(m[1]!);
    return Object.keys(ctx.scripts).filter((k) => regex.test(k));
  } catch {
    return [];
  }
}

/** Names `run-s` / `npm-run-all` run: each word, a trailing `*` matching a prefix. */
function runAllNames(w: string[], ctx: ChainContext): string[] | null {
  const call = scriptCall(w, ctx);
  if (call && w[0] === 'pnpm') return regexNames(call.name.replace(/^bin:/, ''), ctx);
  if (!['run-s', 'run-p', 'npm-run-all', 'npm-run-all2'].includes(w[0] ?? '')) return null;
  return w
    .slice(1)
    .filter((word) => !word.startsWith('-'))
    .flatMap((word) => {
      if (!word.includes('*')) return [word];
      const prefix = word.slice(0, word.indexOf('*'));
      return Object.keys(ctx.scripts).filter((k) => k.startsWith(prefix));
    });
}

/** Whether the words run a script in every workspace (`pnpm -r test`, `lerna run test`). */
function runsWorkspaces(w: string[]): boolean {
  const program = w[0] ?? '';
  if (WORKSPACE_TOOLS.has(program)) return true;
  if (program === 'yarn' && w[1] === 'workspaces') return true;
  return MANAGERS.has(program) && w.some((word) => WORKSPACE_FLAGS.test(word));
}

/** The steps `line` runs, scripts expanded; `script` names the script the line is (or ''). */
export function expandLine(line: string, ctx: ChainContext, script = '', depth = 0): ChainStep[] {
  return splitSteps(line).flatMap((step) => expandStep(step, ctx, script, depth));
}

function expandStep(step: string, ctx: ChainContext, script: string, depth: number): ChainStep[] {
  const w = innerWords(step);
  const asScript = (kind: StepKind): ChainStep['kind'] =>
    kind === 'test' ? (kindOfScript(script) ?? kind) : kind;
  if (runsWorkspaces(w)) return [{ text: step, kind: kindOfScript(script) ?? 'workspaces', script }];
  const names = runAllNames(w, ctx);
  if (names) return names.flatMap((name) => runScript(name, [], ctx, depth));
  const wrapped = wrappedCall(w, ctx, depth);
  if (wrapped) return [{ ...wrapped, script }];
  const call = scriptCall(w, ctx);
  if (!call) return [{ text: withoutLauncher(step), kind: asScript(kindOfWords(w)), script }];
  if (call.name.startsWith('bin:')) {
    const bin = [call.name.slice(4), ...call.args];
    return [{ text: bin.map(quote).join(' '), kind: asScript(kindOfWords(bin)), script }];
  }
  return runScript(call.name, call.args, ctx, depth);
}

/** Coverage wrappers whose program may be a script call (`nyc --reporter=lcov npm test`). */
const COVERAGE = new Set(['nyc', 'c8']);

/**
 * `nyc [options] npm test` as `nyc [options] <the script's command>` when the script is one step;
 * null for another command (or a script of several steps: kept as written then).
 */
function wrappedCall(w: string[], ctx: ChainContext, depth: number): Omit<ChainStep, 'script'> | null {
  if (!COVERAGE.has(w[0] ?? '')) return null;
  const at = w.findIndex((word, i) => i > 0 && MANAGERS.has(word));
  const call = at > 0 ? scriptCall(w.slice(at), ctx) : null;
  if (!call || call.name.startsWith('bin:')) return null;
  const inner = runScript(call.name, call.args, ctx, depth).filter((s) => s.kind === 'test');
  if (inner.length !== 1) return null;
  return { text: `${w.slice(0, at).map(quote).join(' ')} ${inner[0]!.text}`, kind: 'test' };
}

/**
 * A script's steps that change directory, as one subshell step: npm runs each script in a shell of
 * its own, so its `cd` must not reach the steps after it. The step is a test when any part is.
 */
function scoped(steps: ChainStep[], script: string): ChainStep[] {
  if (!steps.some((s) => words(s.text)[0] === 'cd')) return steps;
  const kinds = new Set(steps.map((s) => s.kind));
  const kind = kinds.has('test')
    ? 'test'
    : kinds.has('workspaces')
      ? 'workspaces'
      : kinds.has('build')
        ? 'build'
        : 'tool';
  return [{ text: `(${steps.map((s) => s.text).join(' && ')})`, kind, script }];
}

/** A script's steps: its `pre` hook's (npm and yarn 1 run them), then its own, `args` on its last. */
function runScript(name: string, args: string[], ctx: ChainContext, depth: number): ChainStep[] {
  const body = ctx.scripts[name];
  if (body === undefined || depth >= MAX_DEPTH) return [];
  const pre =
    ctx.preHooks && ctx.scripts[`pre${name}`] !== undefined
      ? runScript(`pre${name}`, [], ctx, depth + 1)
      : [];
  const own = scoped(expandLine(body, ctx, name, depth + 1), name);
  const last = own[own.length - 1];
  if (last && args.length)
    own[own.length - 1] = { ...last, text: `${last.text} ${args.map(quote).join(' ')}` };
  return [...pre, ...own];
}

/** The words of a step's text (for the runner's table). */
export function stepWords(step: ChainStep): string[] {
  return words(step.text);
}
