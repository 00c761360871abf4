// The trust gate, docs/policy.md, "The trust gate": four deterministic checks over what the
// ledger recorded for one call (never over what the model said about it). A result that passes is
// `{ok: true, trust: 'trusted', data}`; one that fails is not dropped but routed back with a caveat,
// exactly `{"ok": true, "trust": "unverified", "caveat": "<which check failed>", "data": ...}`.
//   1. exit-code consistency  run_test: passed === (exit_code === 0); run_test/execute: timed_out
//                             implies exit_code 137 (the kill); both agree with the sandbox receipt
//   2. schema conformance     the result parses against its tool's envelope schema (checked first:
//                             the other checks read its fields)
//   3. round-trip             every search_symbol match holds the query's last token in its name +
//                             signature; a committed edit's diff shows search → replace, once
//   4. lint                   a committed edit carries the harness's own clean lint verdict
// Each failed check adds `<check>: <detail>`; several are joined with "; ".
import type { z } from 'zod';
import type { SandboxVerdict } from '../primitives/results/sandbox-results.js';
import { parseToolResult, type ToolResultOf } from '../primitives/results/tool-results.js';
import type { ToolName } from './registry.js';

/** What the ledger recorded for one executed call. */
export interface RecordedCall {
  tool: ToolName;
  /** The validated args the call ran with. */
  args: Record<string, unknown>;
  /** The tool's result as stored: unchecked until this gate parses it with its tool's schema. */
  result: unknown;
  /** run_test / execute: the sandbox receipt's own fields from the executions row. */
  receipt?: SandboxVerdict | null;
}

export type GatedObservation =
  | { ok: true; trust: 'trusted'; data: unknown }
  | { ok: true; trust: 'unverified'; caveat: string; data: unknown };

/** The exit code a container killed at its time limit reports (128 + SIGKILL). */
export const KILLED_EXIT_CODE = 137;

/** Parts of the gate the ablation rule can remove: one check, or the whole gate. */
export type TrustSkip = 'search_symbol_round_trip' | 'all';

export function trustGate(
  call: RecordedCall,
  options: { skip?: readonly TrustSkip[] } = {},
): GatedObservation {
  // The whole gate removed: nothing is checked, so nothing is marked unverified.
  if (options.skip?.includes('all')) return { ok: true, trust: 'trusted', data: call.result };
  const caveats = checkCall(call, options.skip);
  return caveats.length === 0
    ? { ok: true, trust: 'trusted', data: call.result }
    : { ok: true, trust: 'unverified', caveat: caveats.join('; '), data: call.result };
}

/** Every failed check as `<check>: <detail>`; empty when the result is trusted. */
export function checkCall(call: RecordedCall, skip: readonly TrustSkip[] = []): string[] {
  // Schema conformance first, against the schema the tool's primitive is typed with (the other
  // checks read the fields it guarantees); each case parses with its own tool's schema.
  const tool = call.tool;
  switch (tool) {
    case 'run_test':
    case 'execute':
      return conforming(parseToolResult(tool, call.result), (result) =>
        exitCodeChecks(tool, result, call.receipt),
      );
    case 'search_symbol':
      return conforming(parseToolResult(tool, call.result), (result) =>
        skip.includes('search_symbol_round_trip')
          ? []
          : symbolRoundTrip(String(call.args.query ?? ''), result),
      );
    case 'edit_entity':
      return conforming(parseToolResult(tool, call.result), (result) => editChecks(call.args, result));
    case 'read_entity':
    case 'search_code':
      return conforming(parseToolResult(tool, call.result), () => []);
  }
}

/** The schema's verdict, the envelope's own consistency, then the tool's checks on the typed result. */
function conforming<T extends object>(
  parsed: z.ZodSafeParseResult<T>,
  checks: (result: T) => string[],
): string[] {
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : 'result';
    return [`schema conformance: ${where}: ${issue.message}`];
  }
  const mismatch = envelopeMismatch(parsed.data);
  if (mismatch) return [`schema conformance: ${mismatch}`];
  return checks(parsed.data);
}

function envelopeMismatch(result: object): string | null {
  if (!('ok' in result) || !('error' in result) || !('data' in result)) return null;
  if (result.ok === true && result.data === null) return 'data: an ok envelope has no data';
  if (result.ok === false && result.error === null) return 'error: a failed envelope has no error';
  return null;
}

function exitCodeChecks(
  tool: 'run_test' | 'execute',
  result: ToolResultOf<'run_test'> | ToolResultOf<'execute'>,
  receipt: RecordedCall['receipt'],
): string[] {
  const failures: string[] = [];
  if (tool === 'run_test' && 'passed' in result && result.passed !== (result.exit_code === 0)) {
    failures.push(`passed is ${result.passed} but exit_code is ${result.exit_code}`);
  }
  if (result.timed_out && result.exit_code !== KILLED_EXIT_CODE) {
    failures.push(`timed_out is true but exit_code is ${result.exit_code}, not ${KILLED_EXIT_CODE}`);
  }
  if (receipt) {
    if (receipt.exit_code !== result.exit_code) {
      failures.push(`exit_code is ${result.exit_code} but the sandbox receipt says ${receipt.exit_code}`);
    }
    if (receipt.timed_out !== result.timed_out) {
      failures.push(`timed_out is ${result.timed_out} but the sandbox receipt says ${receipt.timed_out}`);
    }
  }
  return failures.map((detail) => `exit-code consistency: ${detail}`);
}

/** The token a match must contain: the query's last dotted or spaced part (`a.B.remember` → `remember`). */
export function lastQueryToken(query: string): string {
  return (
    query
      .trim()
      .split(/[.\s]+/)
      .filter(Boolean)
      .at(-1) ?? ''
  );
}

function symbolRoundTrip(query: string, result: ToolResultOf<'search_symbol'>): string[] {
  const token = lastQueryToken(query).toLowerCase();
  if (!result.ok || !result.data || token === '') return [];
  const lacking = result.data.matches.filter((match) => {
    const name = match.selector.split('.').at(-1) ?? match.selector;
    return !`${name} ${match.signature}`.toLowerCase().includes(token);
  });
  if (lacking.length === 0) return [];
  const first = lacking[0]!.selector;
  const more = lacking.length > 1 ? ` (and ${lacking.length - 1} more)` : '';
  return [`round-trip: search_symbol match ${first}${more} lacks the query token "${lastQueryToken(query)}"`];
}

function editChecks(args: Record<string, unknown>, result: ToolResultOf<'edit_entity'>): string[] {
  if (!result.ok || !result.data || !result.data.committed) return [];
  const failures: string[] = [];
  const roundTrip = editRoundTrip(String(args.search ?? ''), String(args.replace ?? ''), result.data.diff);
  if (roundTrip) failures.push(`round-trip: ${roundTrip}`);
  if (!result.data.lint_clean)
    failures.push('lint: committed edit carries lint_clean false from the harness lint');
  return failures;
}

/**
 * Re-asserts on the recorded diff what the primitive enforced: the replacement happened, once.
 * Common leading/trailing text of search and replace is set aside, so only the part that changed
 * must show: its old form on a hunk's old side (context and `-` lines), its new form on the same
 * hunk's new side (context and `+` lines). Exactly one hunk must show it. Known limit: a single
 * replacement whose changed part spans more than 6 unchanged lines is split by the diff into two
 * hunks and reads as not shown.
 */
export function editRoundTrip(search: string, replace: string, diff: string): string | null {
  if (search === replace) return null;
  const { before, after } = changedCores(search, replace);
  const hunks = parseHunks(diff);
  if (hunks.length === 0) return 'committed edit has no diff hunk';
  const showing = hunks.filter((hunk) => hunk.old.includes(before) && hunk.new.includes(after)).length;
  if (showing === 0) return 'committed edit diff does not show the search text replaced by the replace text';
  if (showing > 1) return `committed edit diff shows the replacement ${showing} times, not once`;
  return null;
}

function changedCores(search: string, replace: string): { before: string; after: string } {
  let start = 0;
  while (start < search.length && start < replace.length && search[start] === replace[start]) start++;
  let end = 0;
  while (
    end < search.length - start &&
    end < replace.length - start &&
    search[search.length - 1 - end] === replace[replace.length - 1 - end]
  ) {
    end++;
  }
  return {
    before: search.slice(start, search.length - end),
    after: replace.slice(start, replace.length - end),
  };
}

/** The old and new side of each hunk of a unified diff. */
export function parseHunks(diff: string): Array<{ old: string; new: string }> {
  const hunks: Array<{ old: string[]; new: string[] }> = [];
  let current: { old: string[]; new: string[] } | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      current = { old: [], new: [] };
      hunks.push(current);
    } else if (!current || line.startsWith('\\')) continue;
    else if (line.startsWith('-')) current.old.push(line.slice(1));
    else if (line.startsWith('+')) current.new.push(line.slice(1));
    else {
      // A context line (' '), or an empty line where a tool stripped the context line's space.
      current.old.push(line.slice(1));
      current.new.push(line.slice(1));
    }
  }
  return hunks.map((hunk) => ({ old: hunk.old.join('\n'), new: hunk.new.join('\n') }));
}
