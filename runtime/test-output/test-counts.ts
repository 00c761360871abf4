// A suite's counts, as every reader of test output gives them: the shape alone, on a floor below
// the readers (counts.ts reads Python's runners, js/ JavaScript's), so no reader imports another.

export interface TestCounts {
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
}
