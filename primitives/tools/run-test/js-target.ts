// A JavaScript project's run_test target. A path (`src/foo.test.ts`, `test/a.spec.js -t name`), or a
// runner option, runs with the project's runner (the plan's testRunner, else the one package.json
// depends on), asked for its machine
// report into a file under /tmp and with flags that fit the sandbox's CPU and pid limits; once the
// runner has exited its report is printed as a frame (runtime/test-output/js/report-frame.ts), the
// runner's status kept. Anything else (`npm test`, `npx jest -t x`, `cd pkg && yarn test`) runs as
// the shell string it is, read by the console readers.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { readRepoFile } from '../../../runtime/host/inside-repo.js';
import { join } from 'node:path';
import { frameCommand, type ReportKind } from '../../../runtime/test-output/js/report-frame.js';
import { shellArgv } from './shell-argv.js';

interface RunnerCommand {
  kind: ReportKind;
  file: string;
  /** The command before the target's words; `| tee` after them where the report is stdout's copy. */
  command: string;
  tee?: boolean;
}

const JSON_FILE = '/tmp/piper-report.json';
const TAP_FILE = '/tmp/piper-report.tap';
const BIN = 'node_modules/.bin';

/**
 * Each runner with its report and sandbox flags: jest in band (one process), vitest in one forked
 * worker, mocha with `--exit` kept (a handle left open would hold the run to its timeout), node:test
 * its readable report on stdout beside TAP into the file, ava and node-tap with two workers.
 */
const RUNNERS: Readonly<Record<string, RunnerCommand>> = {
  jest: {
    kind: 'jest-json',
    file: JSON_FILE,
    command: `${BIN}/jest --ci --runInBand --json --outputFile=${JSON_FILE}`,
  },
  vitest: {
    kind: 'jest-json',
    file: JSON_FILE,
    command: `${BIN}/vitest run --pool=forks --maxWorkers=1 --reporter=default --reporter=json --outputFile.json=${JSON_FILE}`,
  },
  mocha: {
    kind: 'mocha-json',
    file: JSON_FILE,
    command: `${BIN}/mocha --exit --reporter json --reporter-option output=${JSON_FILE}`,
  },
  'node-test': {
    kind: 'tap',
    file: TAP_FILE,
    command: `node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination=${TAP_FILE}`,
  },
  ava: { kind: 'tap', file: TAP_FILE, command: `${BIN}/ava --tap --concurrency=2`, tee: true },
  tap: {
    kind: 'tap',
    file: TAP_FILE,
    command: `${BIN}/tap --reporter=tap --jobs=2 --disable-coverage`,
    tee: true,
  },
  tape: { kind: 'tap', file: TAP_FILE, command: `${BIN}/tape`, tee: true },
};

/** A test file's name, as the runners' default globs find them. */
const TEST_FILE = /\.(?:test|spec)\.[cm]?[jt]sx?$|^(?:test|tests|__tests__|spec)\/.*\.[cm]?[jt]sx?$/;

/** `&&`, `||`, `;`, a pipe or a redirection: a shell command line, not a runner's arguments. */
const SHELL_CONTROL = /&&|\|\||;|\||[<>]/;
const SOURCE_FILE = /\.[cm]?[jt]sx?$/;

/** A directory of the repository, or a JavaScript/TypeScript file in it (not a script of another kind). */
function isTestTarget(repoRoot: string, path: string): boolean {
  const at = join(repoRoot, path.split(':')[0]!);
  if (!existsSync(at)) return false;
  return statSync(at).isDirectory() || SOURCE_FILE.test(at);
}

/** The argv of a JavaScript project's target, run by `runner` when it is a path or an option. */
export function jsTargetArgv(
  target: string,
  repoRoot: string | undefined,
  runner: string | undefined,
): string[] {
  const trimmed = target.trim();
  const first = trimmed.split(/\s+/)[0] ?? '';
  const chosen = runner === undefined || runner === 'unknown' ? manifestRunner(repoRoot) : runner;
  const known = chosen !== undefined ? RUNNERS[chosen] : undefined;
  // A command line of its own (`./scripts/build.sh && node --test …`, the plan's suite command) runs
  // as written: only a path of test code, a directory or an option is the runner's target.
  const isPath =
    !SHELL_CONTROL.test(trimmed) &&
    (first.startsWith('-') ||
      TEST_FILE.test(first) ||
      (repoRoot !== undefined && first !== '' && isTestTarget(repoRoot, first)));
  if (!known || !isPath) return shellArgv(trimmed);
  return shellArgv(framedRun(known, trimmed));
}

/** Runners a manifest may depend on, the more specific first (vitest projects often carry jest types). */
const BY_DEPENDENCY = ['vitest', 'jest', 'mocha', 'ava', 'tap', 'tape'] as const;

/**
 * Where the plan names no runner: the one the root package.json depends on, if any. A manifest that
 * cannot be read names none, and the target then runs as written.
 */
function manifestRunner(repoRoot: string | undefined): string | undefined {
  if (repoRoot === undefined) return undefined;
  let manifest: { dependencies?: object; devDependencies?: object };
  try {
    // Through the bounded reader: the repository's manifest is its text, a link or a FIFO is none.
    const read = readRepoFile(realpathSync(repoRoot), 'package.json');
    if (!Buffer.isBuffer(read)) return undefined;
    manifest = JSON.parse(read.toString('utf8')) as typeof manifest;
  } catch {
    return undefined;
  }
  const names = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ]);
  return BY_DEPENDENCY.find((name) => names.has(name));
}

/** The runner on the target, then its report as a frame, then the runner's own status. */
function framedRun(runner: RunnerCommand, args: string): string {
  const run = `${runner.command} ${args}${runner.tee ? ` | tee ${runner.file}` : ''}`;
  return `rm -f ${runner.file}; ${run}; status=$?; ${frameCommand(runner.kind, runner.file)}; exit $status`;
}
