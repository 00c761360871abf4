// When one test is reported twice (a failing tearDown after a pass, a failure listing's header, one
// name in two files), the report that says less good of it stands: a pass never hides a failure.

/** The words every reader of test output speaks: pytest's summary words, whatever the runner. */
export type SummaryWord = 'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'XFAIL' | 'XPASS';

const RANK: Record<SummaryWord, number> = {
  PASSED: 0,
  SKIPPED: 1,
  XFAIL: 2,
  XPASS: 3,
  FAILED: 4,
  ERROR: 5,
};

/** Records `word` for `id` in `out` unless a worse word is there already. */
export function putWorse(out: Map<string, SummaryWord>, id: string, word: SummaryWord): void {
  const before = out.get(id);
  if (before === undefined || RANK[word] > RANK[before]) out.set(id, word);
}
