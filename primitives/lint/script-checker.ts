// The lint gate of a JavaScript/TypeScript repository: tree-sitter's syntax findings always, and
// the project's own tsc when the caller gives a runner for it (a project with a tsconfig.json and
// TypeScript in its environment). eslint stays out: one file took 0.84 s and 160 MB with
// typescript-eslint, for rules that are style more than correctness.
import type { Diagnostic } from './diagnostic.js';
import { scriptSyntaxDiagnostics } from './script-syntax.js';
import { TSC_BUDGET_MS, typeCheck, type TscRunner } from './tsc-check.js';

/** The gate's report (lint-gate.ts's LintReport), here `compileCheck` saying whether tsc ran. */
interface ScriptReport {
  diagnostics: Diagnostic[];
  compileCheck: { ran: true } | { ran: false; reason: string };
}

export interface ScriptCheckOptions {
  /** Runs the project's tsc; absent: syntax only (no TypeScript project, or no environment yet). */
  typeCheck?: TscRunner;
  typeCheckBudgetMs?: number;
}

export class ScriptChecker {
  constructor(private readonly options: ScriptCheckOptions = {}) {}

  /**
   * One file's findings. A report with tsc's findings is not `reusable`: they depend on the other
   * files too, which later edits change; syntax findings depend on this content alone.
   */
  async check(source: string, filename: string): Promise<{ report: ScriptReport; reusable: boolean }> {
    const syntax = await scriptSyntaxDiagnostics(source, filename);
    const run = this.options.typeCheck;
    if (!run) return { report: { diagnostics: syntax, compileCheck: { ran: true } }, reusable: true };
    const types = await typeCheck(run, filename, source, this.options.typeCheckBudgetMs ?? TSC_BUDGET_MS);
    const diagnostics: Diagnostic[] = types.ran ? [...syntax, ...types.diagnostics] : syntax;
    diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
    const compileCheck = types.ran ? ({ ran: true } as const) : { ran: false as const, reason: types.reason };
    return { report: { diagnostics, compileCheck }, reusable: false };
  }
}
