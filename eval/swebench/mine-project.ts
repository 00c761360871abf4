// Mines one project's bundle: every candidate fix commit (split.ts) is tried at its parent with the
// test patch, then with the gold patch too, in the real sandbox; what it yields, or why not, is kept.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { classify, observedFailure } from './classify.js';
import { git, gitOk } from './git.js';
import { instanceId, type MinedInstance } from './instance.js';
import { candidateCommits, isTestModule, splitCommit, type SplitCommit } from './split.js';
import { runTests, type TestRun } from './test-outcomes.js';

export interface Tried {
  commit: string;
  subject: string;
  /** Why the candidate is not an instance; undefined when it is one. */
  rejected?: string;
  instance?: MinedInstance;
}

export interface ProjectOptions {
  /** A clone of the bundle this run may check out and clean freely. */
  clone: string;
  repo: string;
  since: string;
  max: number;
  /** Only commits whose subject matches are candidates. */
  subject: RegExp;
  ledgerPath: string;
  /** run-test's --env: auto (build the project's environment) or base (the bare sandbox image). */
  env: string;
  log: (line: string) => void;
  /** Each instance as soon as it is found (a long run's results are not all at its end). */
  found: (instance: MinedInstance) => void;
}

export async function mineProject(options: ProjectOptions): Promise<Tried[]> {
  const tried: Tried[] = [];
  const commits = candidateCommits(options.clone, options.since, options.subject);
  for (const commit of commits.slice(0, options.max)) {
    const split = splitCommit(options.clone, commit);
    const result: Tried = await tryCandidate(options, split).catch((error: unknown) => ({
      commit,
      subject: split.subject,
      rejected: `could not be tried: ${(error as Error).message.split('\n')[0]}`,
    }));
    tried.push(result);
    if (result.instance) options.found(result.instance);
    const what = result.instance
      ? `F2P ${JSON.parse(result.instance.FAIL_TO_PASS).length}, P2P ${JSON.parse(result.instance.PASS_TO_PASS).length}`
      : `rejected: ${result.rejected}`;
    options.log(`${options.repo} ${commit.slice(0, 7)} ${what}  (${split.subject.slice(0, 60)})`);
  }
  return tried;
}

async function tryCandidate(options: ProjectOptions, split: SplitCommit): Promise<Tried> {
  const base = { commit: split.commit, subject: split.subject };
  const { clone } = options;
  git(clone, ['checkout', '-q', '--detach', '-f', split.parent]);
  git(clone, ['clean', '-q', '-fdx']);
  if (!gitOk(clone, ['apply', '--check', '-'], split.testPatch))
    return { ...base, rejected: 'test_patch does not apply' };
  git(clone, ['apply', '-'], split.testPatch);
  const modules = split.testFiles.filter((f) => isTestModule(f) && existsSync(join(clone, f)));
  if (!modules.length) return { ...base, rejected: 'no test module left to run (only helpers or deletions)' };
  const before = await runTests(clone, modules, options);
  if (environmentFailed(before))
    return {
      ...base,
      rejected: `run-test failed (exit ${before.exitCode}; 2 is an environment that cannot be built): ${lastLine(before.stderr)}`,
    };
  if (before.timedOut) return { ...base, rejected: 'the run at base timed out (300 s)' };
  git(clone, ['apply', '-'], split.patch);
  const after = await runTests(clone, modules, options);
  if (environmentFailed(after))
    return {
      ...base,
      rejected: `run-test failed with the fix (exit ${after.exitCode}): ${lastLine(after.stderr)}`,
    };
  if (after.timedOut) return { ...base, rejected: 'the run with the fix timed out (300 s)' };
  const passedAfter = [...after.outcomes.values()].filter((o) => o === 'PASSED').length;
  if (!passedAfter) return { ...base, rejected: `no test passes at the fix (${collectionProblem(after)})` };
  const { failToPass, passToPass } = classify(before.outcomes, after.outcomes);
  if (!failToPass.length)
    return { ...base, rejected: 'no FAIL_TO_PASS test (the new tests pass before the fix)' };
  return { ...base, instance: instanceOf(options, split, { failToPass, passToPass, before, after }) };
}

function instanceOf(
  options: ProjectOptions,
  split: SplitCommit,
  runs: { failToPass: string[]; passToPass: string[]; before: TestRun; after: TestRun },
): MinedInstance {
  return {
    instance_id: instanceId(options.repo, split.commit),
    repo: options.repo,
    base_commit: split.parent,
    patch: split.patch,
    test_patch: split.testPatch,
    FAIL_TO_PASS: JSON.stringify(runs.failToPass),
    PASS_TO_PASS: JSON.stringify(runs.passToPass),
    version: versionAt(options.clone, split.parent),
    environment_setup_commit: split.parent,
    created_at: split.createdAt,
    hints_text: '',
    observed: observedFailure(runs.before.stdout, runs.failToPass),
    run_ms: [runs.before.ms, runs.after.ms],
  };
}

/** The release line the base commit belongs to (`0.5` from the nearest tag `0.5.1`), as SWE-bench's `version`. */
function versionAt(clone: string, commit: string): string {
  try {
    const tag = git(clone, ['describe', '--tags', '--abbrev=0', commit]).trim();
    const m = /(\d+)\.(\d+)/.exec(tag);
    return m ? `${m[1]}.${m[2]}` : tag;
  } catch {
    return '0.0';
  }
}

function environmentFailed(run: TestRun): boolean {
  return run.exitCode !== 0 && run.exitCode !== 4;
}

function collectionProblem(run: TestRun): string {
  const line = run.stdout.split('\n').find((l) => /^E\s|Error/.test(l));
  return line ? line.trim().slice(0, 120) : `exit ${run.exitCode}`;
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop()?.slice(0, 160) ?? '';
}
