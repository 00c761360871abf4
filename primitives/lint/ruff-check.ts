// ruff `--select E9,F`, run in process through ruff's WASM build: no subprocess, no files written.
// The WASM module (~20 MB) is loaded on the first check, not at import, so commands that never
// edit pay nothing for it.
import type { Diagnostic } from './diagnostic.js';
import { liftoffOnly } from './liftoff-only.js';

/** Where ruff reports a finding. Its syntax errors come with the code `invalid-syntax`. */
interface RuffFinding {
  code: string | null;
  message: string;
  start_location: { row: number; column: number };
}

interface RuffWorkspace {
  check(contents: string): unknown;
}

export interface RuffOptions {
  /**
   * The Python version ruff judges syntax against (`py313`). LintGate passes the sandbox's; the
   * default here is the default sandbox image's (Debian trixie's 3.13).
   */
  targetVersion?: string;
}

export class RuffChecker {
  private workspace: Promise<RuffWorkspace> | undefined;

  constructor(private readonly options: RuffOptions = {}) {}

  /** The findings of E9 + F rules for one file's content, lines and columns 1-based (code points). */
  async check(source: string): Promise<Diagnostic[]> {
    const workspace = await this.load();
    const findings = workspace.check(source) as RuffFinding[];
    return findings.map((f) => ({
      code: f.code ?? 'invalid-syntax',
      message: f.message,
      line: f.start_location.row,
      column: f.start_location.column,
    }));
  }

  private load(): Promise<RuffWorkspace> {
    liftoffOnly();
    this.workspace ??= import('@astral-sh/ruff-wasm-nodejs').then(
      (ruff) =>
        // Utf32 = columns counted in code points, as python3's compile() counts them.
        new ruff.Workspace(
          { 'target-version': this.options.targetVersion ?? 'py313', lint: { select: ['E9', 'F'] } },
          ruff.PositionEncoding.Utf32,
        ),
    );
    // A failed load is not cached: the next check tries again and reports its own error.
    this.workspace.catch(() => (this.workspace = undefined));
    return this.workspace;
  }
}
