// The arm measure "fixes with regressions": of the instances whose repro test passed (so the
// product's regression gate ran the project's suite before and after), how many broke a test that
// passed before. Read from the run's own suite report in the ledger (runs.config.suite), never the
// agent's account; an instance from before the gate existed carries none and is not counted.
import { isRecord } from '../../runtime/text/is-record.js';

/** The regressions the gate named for a run's config, or null when the gate did not judge it. */
export function suiteRegressionsOf(config: unknown): string[] | null {
  if (!isRecord(config) || !isRecord(config.suite) || !Array.isArray(config.suite.regressions)) return null;
  return config.suite.regressions.flatMap((r: unknown) =>
    isRecord(r) && typeof r.test === 'string' ? [r.test] : [],
  );
}

/** An instance's facts as far as this measure reads them (metrics.ts InstanceFacts). */
interface SuiteFacts {
  suiteRegressions?: readonly string[] | null;
}

/** A Measure of metrics.ts (which imports this file, so the shape is written here). */
export function fixesWithRegressions(items: readonly SuiteFacts[]): {
  value: number | null;
  of: { numerator: number; denominator: number };
  note?: string;
} {
  const judged = items.filter((f) => Array.isArray(f.suiteRegressions));
  const regressed = judged.filter((f) => f.suiteRegressions!.length > 0).length;
  const of = { numerator: regressed, denominator: judged.length };
  return judged.length === 0
    ? { value: null, of, note: "no instance's repro test passed: the suite was never compared" }
    : { value: regressed / judged.length, of };
}
