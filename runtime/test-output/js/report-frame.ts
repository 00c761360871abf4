// A runner's machine-readable report, carried on stdout after the runner has exited. The runner
// writes its report to a file under /tmp in the container (jest `--outputFile`, mocha's `output`
// option, node:test's reporter destination, a tee of a TAP stream); when the runner is done, the run
// prints that file between two marker lines, gzipped and in base64, only the fields the readers read
// kept. What a test prints while it runs comes before the frame, so the last
// frame is the runner's; a frame that does not end the output, or holds no report (the runner died
// before writing it), is no report, and no console summary stands in for it.
import { gunzipSync } from 'node:zlib';

export type ReportKind = 'jest-json' | 'mocha-json' | 'tap';

const OPEN = /^@@piper-report (jest-json|mocha-json|tap)@@$/;
const CLOSE = '@@piper-report-end@@';
/** A report bigger than this unzipped is no report (a zip bomb a test wrote into the file). */
const MAX_REPORT_BYTES = 64 << 20;

/**
 * The fields the readers read (jest-report.ts, mocha-report.ts), kept in the container and the rest
 * dropped (failure messages, stacks, timings), so a report of 3,000 tests is 15 kB in the frame and
 * one of some 20,000 still fits the output cap's tail.
 */
const KEEP = [
  'numTotalTests',
  'numPassedTests',
  'numFailedTests',
  'numPendingTests',
  'numTodoTests',
  'testResults',
  'name',
  'status',
  'assertionResults',
  'ancestorTitles',
  'title',
  'stats',
  'tests',
  'passes',
  'failures',
  'pending',
  'fullTitle',
  'file',
];

const ZIP_SCRIPT = [
  'const fs=require("fs"),z=require("zlib"),f=process.argv[1];let b;',
  'try{b=fs.readFileSync(f)}catch{b=Buffer.alloc(0)}',
  `const keep=new Set(${JSON.stringify(KEEP)});`,
  'if(b.length&&f.endsWith(".json"))try{b=Buffer.from(JSON.stringify(JSON.parse(b),function(k,v){return k===""||Array.isArray(this)||keep.has(k)?v:undefined}))}catch{}',
  'if(b.length)process.stdout.write(z.gzipSync(b).toString("base64").replace(/.{1,76}/g,"$&\\n"))',
].join('');

/** The shell lines that print the report in `file` as a frame (the runner's status kept by the caller). */
export function frameCommand(kind: ReportKind, file: string): string {
  return [
    `printf '\\n%s\\n' '@@piper-report ${kind}@@'`,
    `node -e '${ZIP_SCRIPT}' ${file}`,
    `printf '\\n%s\\n' '${CLOSE}'`,
  ].join('; ');
}

export type Frame = { kind: ReportKind; text: string } | 'broken' | null;

/** The last frame of the output: its report, `broken`, or null when the output has none. */
export function reportFrame(stdout: string): Frame {
  const lines = stdout.split('\n');
  let open = -1;
  for (let i = lines.length - 1; i >= 0 && open < 0; i--) if (OPEN.test(lines[i]!.trimEnd())) open = i;
  if (open < 0) return null;
  const close = lines.findIndex((l, i) => i > open && l.trimEnd() === CLOSE);
  if (close < 0 || lines.slice(close + 1).some((l) => l.trim() !== '')) return 'broken';
  const body = lines
    .slice(open + 1, close)
    .join('')
    .trim();
  if (body === '') return 'broken';
  try {
    const text = gunzipSync(Buffer.from(body, 'base64'), { maxOutputLength: MAX_REPORT_BYTES }).toString(
      'utf8',
    );
    return { kind: OPEN.exec(lines[open]!.trimEnd())![1] as ReportKind, text };
  } catch {
    return 'broken';
  }
}

/** The output without its frames, as a person (and the model) reads it. */
export function withoutReportFrame(text: string): string {
  return text.replace(
    /\n?@@piper-report (?:jest-json|mocha-json|tap)@@\n[\s\S]*?(?:@@piper-report-end@@\n?|$)/g,
    '\n',
  );
}
