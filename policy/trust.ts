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
// Each failed check adds `<check>: <detail>`; several are joined with "; ". The schema check is
// here; the rest are each tool's own, in its declaration (primitives/tools/<name>/tool.ts).
import type { z } from 'zod';
import type { SandboxVerdict } from '../primitives/results/sandbox-results.js';
import {
  parseToolResult,
  toolDefinition,
  type ToolCall,
  type ToolName,
} from '../primitives/tools/all-tools.js';
import type { TrustSkip } from '../primitives/tools/tool-checks.js';

export type { TrustSkip };

/** What the ledger recorded for one executed call: the validated call, its result and receipt. */
export type RecordedCall<N extends ToolName = ToolName> = ToolCall<N> & {
  /** The tool's result as stored: unchecked until this gate parses it with its tool's schema. */
  result: unknown;
  /** run_test / execute: the sandbox receipt's own fields from the executions row. */
  receipt?: SandboxVerdict | null;
};

export type GatedObservation =
  | { ok: true; trust: 'trusted'; data: unknown }
  | { ok: true; trust: 'unverified'; caveat: string; data: unknown };

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

/**
 * Every failed check as `<check>: <detail>`; empty when the result is trusted. Schema conformance
 * first, against the schema the tool's primitive is typed with (the tool's own checks read the
 * fields it guarantees).
 */
function checkCall<N extends ToolName>(call: RecordedCall<N>, skip: readonly TrustSkip[] = []): string[] {
  const parsed = parseToolResult(call.tool, call.result);
  return conforming(parsed, (result) =>
    toolDefinition(call.tool).trustChecks(call.args, result, call.receipt, skip),
  );
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
