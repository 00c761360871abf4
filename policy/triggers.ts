// The event-driven triggers of docs/policy.md, "Triggers": tool calls the harness makes
// on a state transition, with no model involved, recorded like model calls but with origin `trigger`.
// Each fires at most once per condition key, so a re-entrant state cannot loop it.
//
//   post-edit lint   an edit_entity call committed (committed: true). Key: `lint:<selector>@<edit id>`.
//                    Action: lint the committed file (py_compile + ruff E9,F), observation kind `lint`.
//   post-patch test  a candidate patch is FORMED. Definition: the model's first accepted non-edit
//                    action after one or more edits were committed since the last post-patch test.
//                    "Accepted non-edit action" = a proposal that passed validation for any tool other
//                    than edit_entity, or an ask_user, or a stop (ask_user included: the operator should
//                    see the patch's test result beside the question). Rejected proposals and no-op
//                    turns are not actions: nothing changed, so nothing is formed. The test runs after
//                    that action is chosen and before it executes (or before the loop halts on
//                    ask_user/stop), so the model's next observation includes the result. A run that
//                    ends on a cap forms no patch (the model never moved past editing). Key:
//                    `test:<sha256 of the sorted ids of every edit committed in the run>` — the patch
//                    under test is the whole set. Needs a repro target; without one it never fires.
//   symbol tokens    the issue text or any observation string contains tokens matching the symbol
//                    regex (plus the CamelCase regex with SYMBOL_CAMEL=1). For the first ≤ 3 tokens of
//                    that string not seen before (in order of appearance): search_symbol(token).
//                    Key: `symbol:<token>`. Tokens past the first 3 stay unseen and may fire later.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { symbolMatchSchema } from '../primitives/results/read-results.js';
import { runTestResultSchema } from '../primitives/results/sandbox-results.js';
import { editEntityTool } from '../primitives/tools/edit-entity/tool.js';
import { runTestTool } from '../primitives/tools/run-test/tool.js';
import { searchSymbolTool } from '../primitives/tools/search-symbol/tool.js';
import { toolArgs, type ToolName } from './registry.js';
import type { TriggerSnapshot } from './loop-state.js';
import { scanSymbols } from './symbol-scan.js';

/**
 * The spec's symbol regex (exact): a dotted identifier such as `memstore.MemStore.remember`. Kept as
 * the definition; matching uses the linear scan of symbol-scan.ts, which finds the same tokens.
 */
export const SYMBOL_REGEX = /[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+/g;

/** The weaker CamelCase signal, off by default (SYMBOL_CAMEL=1 turns it on). */
export const CAMEL_REGEX = /\b[A-Z][a-zA-Z0-9_]+\b/g;

/** At most this many search_symbol triggers per string (the spec's k ≤ 3). */
const SYMBOL_TRIGGERS_PER_TEXT = 3;

interface TriggerBase {
  origin: 'trigger';
  key: string;
}

export type TriggerCall =
  | (TriggerBase & { trigger: 'post_edit_lint'; tool: 'lint'; args: { selector: string; path: string } })
  | (TriggerBase & {
      trigger: 'post_patch_test';
      tool: typeof runTestTool.name;
      args: { target: string; timeout: number };
    })
  | (TriggerBase & {
      trigger: 'symbol_token';
      tool: typeof searchSymbolTool.name;
      args: { query: string; k: number };
    });

/** What the model chose this turn, once it is accepted (validated tool call or reserved name). */
export type ModelAction = { kind: 'call'; tool: string } | { kind: 'ask_user' } | { kind: 'stop' };

export interface TriggerOptions {
  /** The repro target (`--test`, or the instance's FAIL_TO_PASS test); null/absent: no post-patch test. */
  reproTarget?: string | null;
  /** SYMBOL_CAMEL=1: also treat bare CamelCase words as symbol tokens. */
  symbolCamel?: boolean;
  /** The post-patch test's timeout in seconds (default: run_test's default). */
  testTimeout?: number;
  /** Triggers switched off (the ablation rule removes one at a time); default: none. */
  off?: readonly TriggerName[];
}

export type TriggerName = TriggerCall['trigger'];

const defaultOf = (tool: TriggerCall['tool'] & ToolName, arg: string): number =>
  toolArgs(tool).find((a) => a.name === arg)!.schema.default as number;

export class TriggerGate {
  private readonly fired: Set<string>;
  private readonly committedEdits: string[];
  private untestedEdits: number;

  constructor(
    private readonly options: TriggerOptions = {},
    restored?: TriggerSnapshot,
  ) {
    this.fired = new Set(restored?.fired ?? []);
    this.committedEdits = [...(restored?.committedEdits ?? [])];
    this.untestedEdits = restored?.untestedEdits ?? 0;
  }

  /** The issue text, or any observation string: search_symbol for its first ≤ 3 new symbol tokens. */
  onText(text: string): TriggerCall[] {
    const calls: TriggerCall[] = [];
    if (this.isOff('symbol_token')) return calls;
    // Lazily, in order of appearance: a long text is scanned only as far as its first new tokens.
    for (const { token } of scanSymbols(text, this.options.symbolCamel === true)) {
      if (calls.length === SYMBOL_TRIGGERS_PER_TEXT) break;
      const key = symbolKey(token);
      if (this.fired.has(key)) continue;
      this.fired.add(key);
      calls.push({
        trigger: 'symbol_token',
        tool: searchSymbolTool.name,
        args: { query: token, k: defaultOf(searchSymbolTool.name, 'k') },
        origin: 'trigger',
        key,
      });
    }
    return calls;
  }

  /** An edit_entity call returned committed: true. */
  onEditCommitted(edit: { editId: string; selector: string; path: string }): TriggerCall[] {
    if (!this.committedEdits.includes(edit.editId)) {
      this.committedEdits.push(edit.editId);
      this.untestedEdits++;
    }
    // Switched off, the lint never fires; the edit still counts toward the post-patch test above.
    if (this.isOff('post_edit_lint')) return [];
    const key = lintKey(edit.selector, edit.editId);
    if (this.fired.has(key)) return [];
    this.fired.add(key);
    return [
      {
        trigger: 'post_edit_lint',
        tool: 'lint',
        args: { selector: edit.selector, path: edit.path },
        origin: 'trigger',
        key,
      },
    ];
  }

  /** The model's accepted action this turn; returns the post-patch test when it forms a patch. */
  onModelAction(action: ModelAction): TriggerCall[] {
    if (action.kind === 'call' && action.tool === editEntityTool.name) return [];
    if (this.untestedEdits === 0) return [];
    this.untestedEdits = 0;
    const target = this.options.reproTarget?.trim();
    // Switched off, it behaves as with no repro target: the patch is formed, and nothing runs.
    if (!target || this.isOff('post_patch_test')) return [];
    const key = patchKey(this.committedEdits);
    if (this.fired.has(key)) return [];
    this.fired.add(key);
    return [
      {
        trigger: 'post_patch_test',
        tool: runTestTool.name,
        args: { target, timeout: this.options.testTimeout ?? defaultOf(runTestTool.name, 'timeout') },
        origin: 'trigger',
        key,
      },
    ];
  }

  /** Whether edits were committed that no post-patch test has covered yet. */
  get patchPending(): boolean {
    return this.untestedEdits > 0;
  }

  private isOff(trigger: TriggerName): boolean {
    return this.options.off?.includes(trigger) === true;
  }

  snapshot(): TriggerSnapshot {
    return {
      fired: [...this.fired],
      committedEdits: [...this.committedEdits],
      untestedEdits: this.untestedEdits,
    };
  }
}

/** The symbol trigger's key for one token. */
function symbolKey(token: string): string {
  return `symbol:${token}`;
}

/** The post-edit lint's key for one committed edit. */
function lintKey(selector: string, editId: string): string {
  return `lint:${selector}@${editId}`;
}

/** `test:` + sha256 of the sorted edit ids: the same set of edits is the same patch, in any order. */
export function patchKey(editIds: readonly string[]): string {
  const ids = [...new Set(editIds)].sort();
  return `test:${createHash('sha256').update(ids.join('\n')).digest('hex')}`;
}

/**
 * The distinct symbol tokens of a text, in order of appearance (dotted first when two start
 * together). Linear in the text; tokens over MAX_SYMBOL_TOKEN characters are skipped.
 */
export function symbolTokens(text: string, options: { camel?: boolean } = {}): string[] {
  const seen = new Set<string>();
  for (const { token } of scanSymbols(text, options.camel === true)) seen.add(token);
  return [...seen];
}

/** A post-patch test's observation: only the run_test verdict. */
const postPatchTestObservationSchema = runTestResultSchema.pick({ passed: true, exit_code: true });

/** A symbol trigger's observation: its query and search_symbol's matches (none when it failed). */
export const symbolObservationSchema = z.object({ query: z.string(), matches: z.array(symbolMatchSchema) });

/**
 * What a trigger's observation records (the spec's shapes): a post-patch test only its verdict,
 * `{passed, exit_code}`; a symbol search `{query, matches}`; a lint its result as produced. A result
 * that does not have its tool's shape is stored as captured (the trust gate's caveat says why).
 */
export function triggerObservation(call: TriggerCall, result: unknown): unknown {
  switch (call.trigger) {
    case 'post_patch_test': {
      const verdict = postPatchTestObservationSchema.safeParse(result);
      return verdict.success ? verdict.data : result;
    }
    case 'symbol_token': {
      const found = searchSymbolTool.result.safeParse(result);
      const matches = found.success ? (found.data.data?.matches ?? []) : [];
      return { query: call.args.query, matches } satisfies z.output<typeof symbolObservationSchema>;
    }
    case 'post_edit_lint':
      return result;
  }
}

/** What a run's ledger rows show the triggers did: enough to restore their memory on resume. */
export interface TriggerHistory {
  /** The query of every search_symbol call the symbol trigger made. */
  symbolQueries: readonly string[];
  /** The run's committed edits in order, each with the selector it edited. */
  edits: ReadonlyArray<{ editId: string; selector: string }>;
  /** For each completed post-patch test, the ids of the edits committed before it. */
  testedPatches: ReadonlyArray<readonly string[]>;
  /** Committed edits made after the last completed post-patch test (all of them if none ran). */
  untestedEdits: number;
}

/** The snapshot the trigger gate would hold after the history above, with its own key formats. */
export function triggerSnapshotFrom(history: TriggerHistory): TriggerSnapshot {
  const fired = new Set<string>();
  for (const query of history.symbolQueries) fired.add(symbolKey(query));
  for (const edit of history.edits) fired.add(lintKey(edit.selector, edit.editId));
  for (const patch of history.testedPatches) fired.add(patchKey(patch));
  return {
    fired: [...fired],
    committedEdits: history.edits.map((e) => e.editId),
    untestedEdits: history.untestedEdits,
  };
}
