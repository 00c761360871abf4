// Why the code index could not be opened at all (per-file problems — syntax errors, unreadable
// files — never get this far: they are flagged or skipped). Callers branch on `kind`.
export type IndexErrorKind =
  | 'grammar_unavailable' // web-tree-sitter or the Python grammar's WASM could not be loaded
  | 'repo_unreadable'; // the repository root does not exist or cannot be read

export class IndexError extends Error {
  constructor(
    readonly kind: IndexErrorKind,
    message: string,
    readonly fix?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'IndexError';
  }
}
