// What the read and search primitives need: the code index, and — to record evidence for the edit
// gate — the ledger with the run (and call) they serve. Dense retrieval needs an embedder; it is
// injected, never built here (runtime/model/embeddings.ts has the HTTP one).
import { recordEvidence } from '../runtime/ledger/evidence.js';
import type { Ledger } from '../runtime/ledger/ledger.js';
import type { CodeIndex } from './index/code-index.js';

/** Any embeddings client: one vector per text, in input order. */
export interface Embedder {
  embed(texts: string[]): Promise<number[][]>;
}

export interface ReadContext {
  index: CodeIndex;
  ledger?: Ledger;
  runId?: string;
  callId?: string;
  embedder?: Embedder;
  /** `embed` turns dense retrieval on for search_code (the `retrieve` setting); unset means lexical. */
  retrieve?: 'lexical' | 'embed';
}

/**
 * Records the selectors a read/search returned, when the context names a run. Returns the error
 * message when the ledger refuses (the caller answers ok: false: a citation that is not recorded
 * would make a later edit fail its evidence gate for no visible reason).
 */
export function citeEvidence(ctx: ReadContext, selectors: string[]): string | null {
  if (!ctx.ledger || !ctx.runId || selectors.length === 0) return null;
  try {
    recordEvidence(ctx.ledger, { runId: ctx.runId, callId: ctx.callId ?? null, selectors });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The registry's int ranges: an out-of-range value is an error value, never clamped silently. */
export function intArg(name: string, value: unknown, min: number, max: number): string | null {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return `invalid arg: ${name} (expected int ${min}..${max}, got ${JSON.stringify(value) ?? String(value)})`;
  }
  return null;
}
