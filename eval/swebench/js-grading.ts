// Grading a JavaScript or TypeScript instance in piper's own environment: the project's runner
// (its plan's, else the one its package.json depends on) runs the instance's test files through
// run_test's JavaScript target (js-target.ts: the runner's machine report, framed), piper's readers
// give each test's outcome, and js-test-names.ts names them as the instance's log parser does, so
// FAIL_TO_PASS and PASS_TO_PASS written in the harness's names grade against them. The harness's
// own test command (an eval_script's) is not run: the runner is the project's, the report piper's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsPlan } from '../../runtime/env/js/plan/js-plan.js';
import { parseTestOutcomes } from '../../runtime/test-output/outcomes.js';
import type { SweInstance } from './instance-file.js';
import { defaultJsParser, harnessNames, isJsLogParser, type JsLogParser } from './js-test-names.js';
import { patchedFiles } from './repos.js';
import type { TestStatus } from './test-grade.js';

const SOURCE = /\.[cm]?[jt]sx?$/;
/** A path given to the runner's command line as one word: nothing the shell would read. */
const PLAIN_PATH = /^[\w@+][\w./@+-]*$/;
/** Runners a manifest may depend on, the more specific first (as js-target.ts picks them). */
const BY_DEPENDENCY = ['vitest', 'jest', 'mocha', 'ava', 'tap', 'tape'] as const;

/** The project's runner: its plan's, else the one its root package.json depends on. */
export function jsRunnerOf(plan: JsPlan, repoRoot: string): string | undefined {
  if (plan.testRunner && plan.testRunner !== 'unknown') return plan.testRunner;
  try {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      dependencies?: object;
      devDependencies?: object;
    };
    const names = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
    ]);
    return BY_DEPENDENCY.find((name) => names.has(name));
  } catch {
    return undefined;
  }
}

/** The instance's log parser: the one it names, else its runner's usual one. */
export function jsParserOf(instance: SweInstance, runner: string | undefined): JsLogParser {
  return isJsLogParser(instance.log_parser) ? instance.log_parser : defaultJsParser(runner);
}

/**
 * The files the runner is given: the test patch's JavaScript/TypeScript files, and the files a
 * vitest name starts with (a test patch may change only a data file the tests import). None: the
 * whole suite (`.`).
 */
export function jsTestTarget(instance: SweInstance, parser: JsLogParser): string {
  const files = new Set(patchedFiles(instance.test_patch).filter((f) => SOURCE.test(f)));
  if (parser === 'parse_log_vitest')
    for (const id of [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS]) {
      const file = id.split(' > ')[0]!;
      if (SOURCE.test(file)) files.add(file);
    }
  const plain = [...files].filter((f) => PLAIN_PATH.test(f) && !f.includes('..')).sort();
  return plain.length > 0 ? plain.join(' ') : '.';
}

/** Each test the run's output names, under the instance's parser's names. */
export function jsOutcomes(
  stdout: string,
  parser: JsLogParser,
  runner: string | undefined,
): Map<string, TestStatus> {
  const piper = new Map<string, TestStatus>();
  for (const [id, word] of parseTestOutcomes('javascript', stdout)) piper.set(id, STATUS[word] ?? 'failed');
  return harnessNames(piper, parser, runner);
}

const STATUS: Record<string, TestStatus> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'error',
  SKIPPED: 'skipped',
  XFAIL: 'passed',
  XPASS: 'skipped',
};
