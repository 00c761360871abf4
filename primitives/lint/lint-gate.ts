// The lint gate of edit_entity (docs/policy.md, "The trust gate": `lint_clean` is the harness's
// verdict, never the model's): ruff E9 + F in process, plus python3's compile(), over one file's content.
// Both judge syntax as the sandbox's Python (3.13 on trixie): ruff through its target version, and
// compile() by running in the sandbox image itself (python-compile.ts). A JavaScript/TypeScript
// repository's gate is tree-sitter's syntax and the project's tsc instead (script-checker.ts).
import { createHash } from 'node:crypto';
import type { LanguageId } from '../../runtime/language/language.js';
import type { Diagnostic } from './diagnostic.js';
import { PythonCompiler, type PythonCompilerOptions } from './python-compile.js';
import { RuffChecker, type RuffOptions } from './ruff-check.js';
import { ScriptChecker, type ScriptCheckOptions } from './script-checker.js';

export interface LintReport {
  /** Every finding, sorted by position. */
  diagnostics: Diagnostic[];
  /** Whether the sandbox's compile() ran; when it did not, the findings are ruff's alone and `reason` says why. */
  compileCheck: { ran: true } | { ran: false; reason: string };
}

export type LintGateOptions = PythonCompilerOptions &
  RuffOptions &
  ScriptCheckOptions & {
    /** The repository's language profile; default 'python'. */
    language?: LanguageId;
  };

/** Reports for recently checked contents: an edit's "after" is the next edit's "before". */
const CACHE_SIZE = 32;

export class LintGate {
  private readonly ruff: RuffChecker;
  private readonly python: PythonCompiler;
  private readonly script: ScriptChecker | undefined;
  private readonly cache = new Map<string, LintReport>();

  constructor(options: LintGateOptions = {}) {
    this.script = options.language === 'javascript' ? new ScriptChecker(options) : undefined;
    this.python = new PythonCompiler(options);
    const version = this.python.pythonVersion.replace('.', '');
    this.ruff = new RuffChecker({ ...options, targetVersion: options.targetVersion ?? `py${version}` });
  }

  /**
   * Lints one file's full content. `filename` only names the file in compile() messages. Throws
   * when ruff itself cannot run: a gate that cannot look must not say yes.
   */
  async check(source: string, filename = '<file>'): Promise<LintReport> {
    const key = createHash('sha256').update(filename).update('\u0000').update(source).digest('hex');
    const cached = this.cache.get(key);
    if (cached) return cached;
    if (this.script) {
      const { report, reusable } = await this.script.check(source, filename);
      if (reusable) this.remember(key, report);
      return report;
    }
    // The compile request goes out first, so python3 works while ruff (synchronous WASM) runs here.
    const compiled = this.python.compile(source, filename);
    const [ruffFindings, outcome] = await Promise.all([this.ruff.check(source), compiled]);
    const diagnostics = [...ruffFindings];
    if (outcome.available && outcome.diagnostic) diagnostics.push(outcome.diagnostic);
    diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
    const report: LintReport = {
      diagnostics,
      compileCheck: outcome.available ? { ran: true } : { ran: false, reason: outcome.reason },
    };
    if (outcome.available) this.remember(key, report);
    return report;
  }

  /**
   * Lets the compile server exit and resolves once its sandbox container is removed (one still
   * being created included). The gate can still be used: it starts a new one.
   */
  close(): Promise<void> {
    return this.python.close();
  }

  private remember(key: string, report: LintReport): void {
    this.cache.set(key, report);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
  }
}
