// What a JavaScript runner's report tells, in the words and counts every reader of test output
// speaks: each test's word (pytest's summary words) and the suite's counts, or no counts where the
// report has none a reader can trust.
import type { z } from 'zod';
import type { TestCounts } from '../test-counts.js';
import { putWorse, type SummaryWord } from '../worse-word.js';

export interface JsReading {
  outcomes: Map<string, SummaryWord>;
  counts: TestCounts | undefined;
}

/** The ids a runner reports under the sandbox's workspace are read relative to it. */
const WORKSPACE = '/work/';

export function workspacePath(path: string): string {
  return path.startsWith(WORKSPACE) ? path.slice(WORKSPACE.length) : path;
}

/** How the readers join a test's file, its describe blocks and its title: jest's own separator. */
export const ID_JOIN = ' › ';

/**
 * Outcomes and counts built together. Each report counts once, so two tests of one title (the same
 * `describe` twice, tape's repeated assertion messages) count twice though their id keeps one word,
 * the worse: a todo or skip is skipped, an errored file or hook an error.
 */
export class Tally {
  readonly outcomes = new Map<string, SummaryWord>();
  readonly counts: TestCounts = { passed: 0, failed: 0, errors: 0, skipped: 0 };

  put(id: string, word: SummaryWord): void {
    putWorse(this.outcomes, id, word);
    if (word === 'PASSED') this.counts.passed++;
    else if (word === 'FAILED' || word === 'XPASS') this.counts.failed++;
    else if (word === 'ERROR') this.counts.errors++;
    else this.counts.skipped++;
  }

  reading(): JsReading {
    return { outcomes: this.outcomes, counts: this.counts };
  }
}

/** A machine report's JSON read against the runner's schema; undefined when it is not one. */
export function parsedReport<S extends z.ZodType>(schema: S, text: string): z.output<S> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const result = schema.safeParse(parsed);
  return result.success ? result.data : undefined;
}
