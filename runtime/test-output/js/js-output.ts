// The one reading of a JavaScript test run's output. The machine report piper framed after the
// runner exited (report-frame.ts) is the whole reading when it is there. Without one (a project's
// own `npm test`), every summary found is read — a TAP stream or a JSON report ending stdout,
// jest's, vitest's, mocha's, node:test's and ava's console summaries (mocha's, jest's and node:test's
// listings per test) — and where more than one is found the
// worse stands (the most failures and errors, the fewest passes): a test that prints a second
// runner's summary can make a run worse, never better.
import { withoutColors } from '../../text/terminal-colors.js';
import type { TestCounts } from '../test-counts.js';
import { putWorse } from '../worse-word.js';
import {
  avaConsoleCounts,
  jestConsoleCounts,
  mochaConsoleCounts,
  nodeSpecConsoleCounts,
  nodeTapConsoleCounts,
  uvuConsoleCounts,
  vitestConsoleCounts,
} from './console-summary.js';
import { consoleFailures } from './console-failures.js';
import { readJestReport } from './jest-report.js';
import { parseJestVerbose } from './jest-verbose.js';
import { readMochaReport } from './mocha-report.js';
import { parseMochaSpec } from './mocha-spec.js';
import { parseNodeSpec } from './node-spec.js';
import type { JsReading } from './reading.js';
import { reportFrame, type ReportKind } from './report-frame.js';
import { stdoutReport } from './stdout-report.js';
import { isTapStream, readTap } from './tap-stream.js';

const REPORT_READERS: Record<ReportKind, (text: string) => JsReading | undefined> = {
  'jest-json': readJestReport,
  'mocha-json': readMochaReport,
  tap: readTap,
};

export function readJsOutput(stdout: string, stderr: string): JsReading {
  const [out, err] = [withoutColors(stdout), withoutColors(stderr)];
  const frame = reportFrame(out);
  if (frame === 'broken') return { outcomes: new Map(), counts: undefined };
  if (frame) return REPORT_READERS[frame.kind](frame.text) ?? { outcomes: new Map(), counts: undefined };
  const tap = isTapStream(out) ? readTap(out) : undefined;
  const json = stdoutReport(out);
  const mocha = mochaConsoleCounts(out);
  // jest writes to stderr; a command that joins the streams (`2>&1 | tee`) has it on stdout.
  const jest = jestConsoleCounts(err) ?? jestConsoleCounts(out);
  const nodeSpec = nodeSpecConsoleCounts(out);
  const listing = jest ? parseJestVerbose(err) : new Map();
  const outcomes = consoleFailures(out, err, listing.size === 0);
  const named = [
    ...(tap?.outcomes ?? []),
    ...(json?.outcomes ?? []),
    ...(mocha ? parseMochaSpec(out) : []),
    ...(nodeSpec ? parseNodeSpec(out) : []),
    ...listing,
  ];
  for (const [id, word] of named) putWorse(outcomes, id, word);
  const found = [
    tap?.counts,
    json?.counts,
    jest,
    vitestConsoleCounts(out),
    mocha,
    avaConsoleCounts(out),
    nodeSpec,
    uvuConsoleCounts(out),
    nodeTapConsoleCounts(out),
  ].filter((c): c is TestCounts => c !== undefined);
  return { outcomes, counts: found.length ? found.reduce(worse) : undefined };
}

function worse(a: TestCounts, b: TestCounts): TestCounts {
  return {
    passed: Math.min(a.passed, b.passed),
    failed: Math.max(a.failed, b.failed),
    errors: Math.max(a.errors, b.errors),
    skipped: Math.max(a.skipped, b.skipped),
  };
}
