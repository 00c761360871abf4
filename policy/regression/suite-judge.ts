// The regression gate's judgement once the loop has ended: the final run beside the base, compared
// per test (suite-compare.ts). A base over its budget (its run killed by the time limit) leaves
// the test files that import the changed code (primitives/regression/affected-tests.ts), run on
// both snapshots: `partial`, said, never silent. Effects are injected (the runs, the snapshot).
import type { KeptSnapshot } from '../../primitives/regression/suite-snapshot.js';
import { affectedTestFiles } from '../../primitives/regression/affected-tests.js';
import { compareRuns, type SuiteComparison, type SuiteRun } from './suite-compare.js';
import type { SuiteReport } from './suite-report.js';

/** The base side as the run gets it: read per test, from the ledger or a fresh run; or why not. */
export type BaseSide = { run: SuiteRun; cached: boolean } | { error: string };

export interface GateRuns {
  command: string;
  base: Promise<BaseSide>;
  /** null for a resumed run: its base tree is gone (a cached whole-suite base still compares). */
  baseSnapshot: KeptSnapshot | null;
  finalSnapshot: () => Promise<KeptSnapshot>;
  run: (snapshot: KeptSnapshot, target: string, side: 'base' | 'final') => Promise<SuiteRun>;
  /**
   * The whole command on the final tree: a run started early on this same tree, else one started
   * now; with how to stop it (over budget, only the affected files run). null: none, and any run
   * started early is stopped.
   */
  finalRun: (
    snapshot: KeptSnapshot | null,
  ) => Promise<{ run: Promise<SuiteRun>; stop: () => Promise<void> } | null>;
}

export async function judgeSuite(
  runs: GateRuns,
  changed: readonly string[],
  startedMs: number,
): Promise<SuiteReport> {
  const waited = () => Math.round((Date.now() - startedMs) / 100) / 10;
  const notRun = (reason: string, cached = false): SuiteReport => ({
    ...empty(runs.command, cached),
    status: 'not_run',
    reason,
    seconds: waited(),
  });
  try {
    const snapshot = await runs.finalSnapshot();
    // A base already known over its budget needs no whole final run; one still going does not
    // hold the final run back: both run, and the final one is stopped if the base ends over budget.
    const known = await Promise.race([runs.base, Promise.resolve(null)]);
    const overBudget = known !== null && 'run' in known && known.run.timedOut;
    const final = await runs.finalRun(overBudget ? null : snapshot);
    const base = await runs.base;
    if ('error' in base || base.run.timedOut) await final?.stop();
    if ('error' in base) return notRun(base.error);
    if (base.run.timedOut)
      return { ...(await partial(runs, snapshot, changed, base.cached)), seconds: waited() };
    const after = await final!.run;
    return {
      ...reportOf(runs.command, compareRuns(runs.command, base.run, after), base.cached),
      seconds: waited(),
    };
  } catch (error) {
    return notRun(`the suite could not run: ${(error as Error).message}`);
  }
}

/** Over budget: only the test files that import what the fix changed, before and after. */
async function partial(
  runs: GateRuns,
  snapshot: KeptSnapshot,
  changed: readonly string[],
  cached: boolean,
): Promise<Omit<SuiteReport, 'seconds'>> {
  const files = affectedTestFiles(snapshot.root, snapshot.files, changed);
  const over = `the whole suite ran over its budget`;
  const baseSnapshot = runs.baseSnapshot;
  if (baseSnapshot === null)
    return {
      ...empty(runs.command, cached),
      status: 'not_run',
      reason: `${over}, and a resumed run's base tree is gone`,
    };
  if (files.length === 0)
    return {
      ...empty(runs.command, cached),
      status: 'not_run',
      reason: `${over}, and no test file imports the changed code`,
    };
  const target = `python -m pytest ${files.join(' ')}`;
  const [before, after] = await Promise.all([
    runs.run(baseSnapshot, target, 'base'),
    runs.run(snapshot, target, 'final'),
  ]);
  const report = reportOf(target, compareRuns(target, before, after), cached);
  return {
    ...report,
    status: report.status === 'regressed' ? 'regressed' : 'partial',
    files,
    reason: `${over}; only the ${files.length} test file(s) importing the changed code ran`,
  };
}

function reportOf(command: string, c: SuiteComparison, cached: boolean): Omit<SuiteReport, 'seconds'> {
  if (c.notRun) return { ...empty(command, cached), status: 'not_run', reason: c.notRun };
  return {
    ...empty(command, cached),
    status: c.regressions.length ? 'regressed' : 'clean',
    passed_both: c.passedBoth,
    regressions: c.regressions,
    failing_before: c.failingBefore,
  };
}

function empty(command: string, cached: boolean): Omit<SuiteReport, 'seconds' | 'status'> {
  return { command, passed_both: 0, regressions: [], failing_before: [], base_cached: cached };
}
