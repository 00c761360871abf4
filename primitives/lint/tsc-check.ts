// The type half of the TypeScript lint gate: the project's own `tsc --noEmit`, run by a runner the
// caller gives (in the sandbox, with the project's environment and its TypeScript), with one file's
// content in place of what is on disk, within a time budget. Its diagnostics become findings the
// gate compares before and after an edit, so only the type errors an edit adds block it.
import type { Diagnostic } from './diagnostic.js';

/** One run of `tsc --noEmit --pretty false -p <tsconfig>` with `path` holding `text`. */
interface TscRequest {
  path: string;
  text: string;
  timeoutMs: number;
}

type TscRun = { ran: true; exitCode: number; output: string } | { ran: false; reason: string };

export type TscRunner = (request: TscRequest) => Promise<TscRun>;

export type TypeCheck = { ran: true; diagnostics: Diagnostic[] } | { ran: false; reason: string };

/** Long enough for a mid-size project's full check on two cores; an edit waits no longer. */
export const TSC_BUDGET_MS = 60_000;

/** tsc exits 1 with diagnostics, 2 when it also emitted nothing because of them: both are answers. */
const ANSWERS = new Set([0, 1, 2]);

export async function typeCheck(
  run: TscRunner,
  path: string,
  text: string,
  timeoutMs = TSC_BUDGET_MS,
): Promise<TypeCheck> {
  const outcome = await run({ path, text, timeoutMs });
  if (!outcome.ran) return { ran: false, reason: `types not checked: ${outcome.reason}` };
  const diagnostics = parseTscOutput(outcome.output, path);
  if (!ANSWERS.has(outcome.exitCode) || (outcome.exitCode !== 0 && diagnostics.length === 0)) {
    const tail = outcome.output.trim().split('\n').slice(-3).join(' ').slice(0, 300);
    return { ran: false, reason: `types not checked: tsc exited ${outcome.exitCode} (${tail})` };
  }
  return { ran: true, diagnostics };
}

const LINE = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$/;
const GLOBAL = /^(error|warning) (TS\d+): (.*)$/;

/**
 * `src/a.ts(3,7): error TS2322: Type … .` lines (with their indented continuation lines) as
 * findings. A finding in another file than `path` (an edit can break a caller) keeps that file's
 * position and names it first in the message, so the before/after comparison tells it apart.
 */
export function parseTscOutput(output: string, path: string): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const located = LINE.exec(line);
    const global = located ? null : GLOBAL.exec(line);
    if (located) {
      const [, file, row, column, , code, message] = located;
      const elsewhere = normalise(file!) === normalise(path) ? '' : `[${normalise(file!)}] `;
      found.push({
        code: code!,
        message: `${elsewhere}${message!}`,
        line: Number(row),
        column: Number(column),
      });
    } else if (global) {
      found.push({ code: global[2]!, message: global[3]!, line: 0, column: 0 });
    } else if (/^\s+\S/.test(line) && found.length > 0) {
      found[found.length - 1]!.message += ` ${line.trim()}`;
    }
  }
  return found;
}

function normalise(file: string): string {
  return file.replace(/\\/g, '/').replace(/^\.\//, '');
}
