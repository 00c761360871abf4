// One finding of the lint gate, and the rule that decides whether an edit added findings.
// The gate compares the file before and after an edit: only what the edit ADDS blocks it, so a
// repository with old warnings can still be edited, and an edit that removes one is welcome.
// A refused edit's result carries its new findings, so the finding is a schema (results/edit-result.ts).
import { z } from 'zod';

export const diagnosticSchema = z.object({
  /** A ruff rule code (`F821`), `invalid-syntax` (ruff's parser) or `E999` (python3's compile()). */
  code: z.string(),
  message: z.string(),
  /** 1-based line and column of the finding in the checked content. */
  line: z.int(),
  column: z.int(),
});
export type Diagnostic = z.output<typeof diagnosticSchema>;

/** Codes that mean "the file does not parse": while one is present, ruff runs no other rule. */
function isSyntaxDiagnostic(d: Diagnostic): boolean {
  return d.code === 'invalid-syntax' || d.code === 'E999';
}

/**
 * The identity of a finding for the before/after comparison: code + message, with line numbers
 * inside the message (`Redefinition of unused os from line 3`) blurred so an edit that only
 * shifts lines does not turn an old finding into a new one.
 */
function identity(d: Diagnostic): string {
  return `${d.code}\u0000${d.message.replace(/\bline \d+\b/g, 'line N')}`;
}

/** The 1-based inclusive line range of the new content that an edit wrote. */
export interface ChangedLines {
  start: number;
  end: number;
}

/**
 * The findings of `after` that `before` did not have, compared as multisets (two F821 before and
 * three after = one new). When `before` did not parse, ruff reported nothing but the syntax error,
 * so the rules it skipped have no baseline: a non-syntax finding outside the lines the edit wrote
 * was hidden, not introduced, and does not count; one inside those lines does.
 */
export function addedDiagnostics(
  before: Diagnostic[],
  after: Diagnostic[],
  changed: ChangedLines,
): Diagnostic[] {
  const remaining = new Map<string, number>();
  for (const d of before) remaining.set(identity(d), (remaining.get(identity(d)) ?? 0) + 1);
  const beforeWasMasked = before.some(isSyntaxDiagnostic);
  const added: Diagnostic[] = [];
  for (const d of after) {
    const left = remaining.get(identity(d)) ?? 0;
    if (left > 0) {
      remaining.set(identity(d), left - 1);
      continue;
    }
    const outsideEdit = d.line < changed.start || d.line > changed.end;
    if (beforeWasMasked && !isSyntaxDiagnostic(d) && outsideEdit) continue;
    added.push(d);
  }
  return added;
}

/** `F821 Undefined name `x` (line 3)`: how a finding reads in a refusal. */
export function describeDiagnostic(d: Diagnostic): string {
  return `${d.code} ${d.message} (line ${d.line})`;
}
