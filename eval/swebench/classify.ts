// SWE-bench's two lists from the two runs of the touched test files: FAIL_TO_PASS fail (or do not
// exist, or do not collect) at base_commit + test_patch and pass with the gold patch too;
// PASS_TO_PASS pass both times. A test failing both times is in neither list.
import type { SummaryWord } from '../../runtime/test-output/pytest-summary.js';

export function classify(
  before: Map<string, SummaryWord>,
  after: Map<string, SummaryWord>,
): { failToPass: string[]; passToPass: string[] } {
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  for (const [id, outcome] of after) {
    if (outcome !== 'PASSED') continue;
    if (before.get(id) === 'PASSED') passToPass.push(id);
    else failToPass.push(id);
  }
  return { failToPass: failToPass.sort(), passToPass: passToPass.sort() };
}

/**
 * The failure pytest printed for the first FAIL_TO_PASS test at base (its `___ name ___` section of
 * --tb=short, or the collection error), at most `maxLines` lines: the draft of what is wrong.
 */
export function observedFailure(stdout: string, failToPass: string[], maxLines = 30): string {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of stdout.split('\n')) {
    const header = /^_{3,} (.+?) _{3,}$/.exec(line);
    if (header) sections.set(header[1]!, (current = []));
    else if (/^={3,} /.test(line)) current = undefined;
    else current?.push(line);
  }
  const first = failToPass[0] ?? '';
  const title = first.split('::').slice(1).join('.');
  const file = first.split('::')[0] ?? '';
  const match =
    sections.get(title) ?? sections.get(`ERROR collecting ${file}`) ?? [...sections.values()][0] ?? [];
  return match.slice(0, maxLines).join('\n').trim();
}
