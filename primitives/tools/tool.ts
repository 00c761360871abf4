// One tool, declared in one module (primitives/tools/<name>.ts): its args and result schemas, what
// the registry says of it (description, category, keywords), the observation kind and the argument
// its observations name as their target, how a call of it runs, and how its result reads in one
// line. The registry, the dispatcher, the trust gate's schema check and the simulator read the list
// of these (all-tools.ts); none of them names a tool. What the policy decides about a tool (its
// preconditions, its trust checks) is the policy's own module of it (policy/tools/<name>.ts).
import type { z } from 'zod';
import type { SandboxVerdict } from '../results/sandbox-results.js';
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
  /** A committed edit: its ledger id, selector and file. */
  edit?: { editId: string; selector: string; path: string };
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
}

/** A tool definition with its name, args and result types inferred from the literal. */
export function defineTool<N extends string, A extends z.ZodObject, R extends z.ZodType>(
  definition: ToolDefinition<N, A, R>,
): ToolDefinition<N, A, R> {
  return definition;
}

/** The string value of one argument ('' when absent or not a string): what `subject` reads. */
export function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  return typeof value === 'string' ? value : '';
}
