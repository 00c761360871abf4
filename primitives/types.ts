// Shapes shared by the six primitives and the layers above them. The return envelopes follow the
// tool registry (docs/policy.md, "The tool registry"); each tool's own result is declared once as a
// zod schema in results/, and an entity once in the ledger's code-entity.ts (the rows store it).

export type { Entity } from '../runtime/ledger/code-entity.js';
import type { Entity } from '../runtime/ledger/code-entity.js';

/**
 * What every read/search primitive returns: never an exception, always this envelope. The schema
 * results/envelope.ts builds for each tool has this shape (checked there at compile time).
 */
export interface Envelope<T> {
  ok: boolean;
  error: string | null;
  data: T | null;
}

/** Looking entities up by selector; implemented by the code index. */
export interface EntityLookup {
  get(selector: string): Entity | undefined;
  /** The indexed selector for a selector or its import form (CodeIndex.resolve); undefined: unknown. */
  resolve(selector: string): string | undefined;
  /** Re-parses the given files (repo-relative paths) after they changed on disk. */
  refresh(paths: string[]): Promise<void>;
}
