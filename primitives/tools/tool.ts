// One tool, declared in its own folder (primitives/tools/<name>/tool.ts, its effect beside it): its
// args and result schemas, what the registry says of it (description, category, keywords), the
// observation kind and the argument its observations name as their target, how a call of it runs,
// its precondition, the trust gate's checks of its result, and whether retrieval presents it by
// default. The registry, validation, the trust gate, retrieval, the dispatcher and the simulator read
// the one table of these (all-tools.ts); none of them names a tool.
import type { z } from 'zod';
import type { SandboxVerdict } from '../results/sandbox-results.js';
import type { Limits, Receipt } from '../../runtime/sandbox/spec.js';
import type { PreconditionChecks, TrustSkip } from './tool-checks.js';
import type { ToolContext } from './tool-context.js';

export interface ExecutedCall {
  callId: string;
  /** Observation kind: read, search, symbol, edit, lint, test, execute (or denied: a refused edit). */
  kind: string;
  target: string;
  /**
   * The primitive's result exactly as captured. Typed unknown on purpose: what the loop trusts of it
   * is what the trust gate's parse with the tool's schema (all-tools.ts `parseToolResult`) lets through.
   */
  result: unknown;
  /** run_test / execute: the receipt fields the ledger recorded for this call. */
  receipt: SandboxVerdict | null;
  /**
   * execute: the sandbox's whole receipt as the run returned it (timings, container, image, limits),
   * which a person's one-shot `piper-agent execute` prints. The loop and the trust gate read
   * `receipt`, from the ledger.
   */
  sandboxReceipt?: Receipt;
  /** A committed edit: its ledger id, selector and file. */
  edit?: { editId: string; selector: string; path: string };
  /**
   * The run's authorization stage refused the call (it never ran): the harness's record of that
   * decision, the same for every tool. `reason` is what the tool's result says of it.
   */
  denied?: { reason: string | null };
}

export interface ToolDefinition<N extends string, A extends z.ZodObject, R extends z.ZodType> {
  readonly name: N;
  /** What the model reads of the tool (the registry's description). */
  readonly description: string;
  /** The spec's one-line account of the result (the registry's `returns`). */
  readonly returns: string;
  readonly category: string;
  /** Retrieval's keyword map: each found in the issue and latest observation scores one. */
  readonly keywords: readonly string[];
  /** Strict: an arg not declared here is rejected (`unknown arg: <name>`), never ignored. */
  readonly args: A;
  /** What a call returns: the primitive's return type and the trust gate's schema check. */
  readonly result: R;
  /** The kind of the call's observation. */
  readonly kind: string;
  /** The kind when a trigger made the call (the symbol trigger's search is `symbol`). */
  readonly triggerKind?: string;
  /** Runs in a sandbox container: its ledger row has an executions row (the receipt). */
  readonly sandboxed: boolean;
  /** The argument a call is about; its observations name it as their target. */
  subject(args: Record<string, unknown>): string;
  /** Runs one validated call; a failure of the primitive comes back as its result, never a throw. */
  run(ctx: ToolContext, args: z.output<A>): Promise<ExecutedCall>;
  /** Validation's rule 3: what follows `precondition failed: `, or null when the call may run. */
  precondition(
    args: z.output<A>,
    checks: PreconditionChecks,
    gates: { evidenceGate: boolean },
  ): string | null;
  /** The trust gate's checks after schema conformance, each failure as `<check>: <detail>`. */
  trustChecks(
    args: z.output<A>,
    result: z.output<R>,
    receipt: SandboxVerdict | null | undefined,
    skip: readonly TrustSkip[],
  ): string[];
  /** One of the default set retrieval presents when no keyword scores (the observe-only tools). */
  readonly presentedByDefault: boolean;
  /** A sandboxed tool's container limits (all but the call's time): they travel with the tool. */
  readonly limits?: Omit<Limits, 'timeoutS'>;
}

/** A tool definition with its name, args and result types inferred from the literal. */
export function defineTool<
  N extends string,
  A extends z.ZodObject,
  R extends z.ZodType,
  D extends ToolDefinition<N, A, R> = ToolDefinition<N, A, R>,
>(definition: D & ToolDefinition<N, A, R>): D {
  return definition;
}

/** The string value of one argument ('' when absent or not a string): what `subject` reads. */
export function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  return typeof value === 'string' ? value : '';
}
