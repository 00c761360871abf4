// Shapes shared by the six primitives and the layers above them. The return envelopes follow the
// registry of ../shared/spec/tool-calling-policy.md section 4.1.

/** What every read/search primitive returns: never an exception, always this envelope. */
export interface Envelope<T> {
  ok: boolean;
  error: string | null;
  data: T | null;
}

export type EntityKind = 'module' | 'class' | 'function' | 'method';

/** One entity of the code index (DESIGN.md section 5). Lines are 1-based and inclusive. */
export interface Entity {
  /** e.g. `src.calc.ops.Calc.add`; a module's selector is its dotted path (`pkg` for pkg/__init__.py). */
  selector: string;
  kind: EntityKind;
  /** The entity's own name (`add`); for a module, the last path component. */
  name: string;
  /** Path relative to the repo root, with `/` separators. */
  path: string;
  startLine: number;
  endLine: number;
  /** Byte offsets of the entity's span (decorators included) in the file's UTF-8 bytes. */
  startByte: number;
  endByte: number;
  /** Decorators + the header up to its colon, e.g. `@cache\ndef add(self, a, b) -> int:`. */
  signature: string;
  /** First line of the docstring, or null. */
  doc: string | null;
  async: boolean;
}

/** Looking entities up by selector; implemented by the code index. */
export interface EntityLookup {
  get(selector: string): Entity | undefined;
  /** The indexed selector for a selector or its import form (CodeIndex.resolve); undefined: unknown. */
  resolve(selector: string): string | undefined;
  /** Re-parses the given files (repo-relative paths) after they changed on disk. */
  refresh(paths: string[]): Promise<void>;
}
