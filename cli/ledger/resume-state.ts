// The loop state a resumed run starts from. A run that ended through the loop saved it (turns used,
// the triggers' memory) under config.loop_state. A run whose process died never got there — or
// saved it at an earlier ending and then died in a later segment — so its state is rebuilt from the
// rows the triggers left: which fired, which edits were committed, which of them a post-patch test
// has covered. The policy layer turns those facts into the triggers' memory, with its own keys.
import type { LoopState } from '../../policy/loop.js';
import { triggerSnapshotFrom } from '../../policy/triggers.js';
import { parseLoopState } from '../../policy/loop-state.js';
import { editEntityTool } from '../../primitives/tools/edit-entity/tool.js';
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import { searchSymbolTool } from '../../primitives/tools/search-symbol/tool.js';
import { turnsUsed } from './loop-turns.js';
import type { CallView, RunDocument } from './run-document.js';

/** Outcomes written when a run's process went away instead of its loop ending it. */
function diedMidRun(outcome: string | null): boolean {
  return outcome === null || outcome === 'interrupted';
}

export function loopStateFor(doc: RunDocument): { state: LoopState; source: 'saved' | 'rebuilt' } {
  const saved = parseLoopState(doc.run.config.loop_state);
  if (saved && !diedMidRun(doc.run.outcome)) return { state: saved, source: 'saved' };
  return { state: rebuiltState(doc), source: 'rebuilt' };
}

export function rebuiltState(doc: RunDocument): LoopState {
  const calls = doc.turns.flatMap((t) => t.calls);
  const byTrigger = (tool: string) => calls.filter((c) => c.origin === 'trigger' && c.tool === tool);
  const editSelector = new Map(
    calls.filter((c) => c.tool === editEntityTool.name).map((c) => [c.id, argOf(c, 'selector')]),
  );
  const editsBefore = (at: string) => doc.edits.filter((e) => e.created_at <= at).map((e) => String(e.id));
  // A post-patch test that did not complete (its process died in it) covered nothing: it fires again.
  const tests = byTrigger(runTestTool.name).filter((c) => c.status === 'completed');
  const lastTest = tests.at(-1)?.created_at;
  const triggers = triggerSnapshotFrom({
    symbolQueries: byTrigger(searchSymbolTool.name).map((c) => String(argOf(c, 'query'))),
    edits: doc.edits.map((e) => ({
      editId: String(e.id),
      selector: String((e.call_id ? editSelector.get(e.call_id) : undefined) ?? e.selector),
    })),
    testedPatches: tests.map((t) => editsBefore(t.created_at)),
    untestedEdits: doc.edits.filter((e) => lastTest === undefined || e.created_at > lastTest).length,
  });
  return { turnsUsed: turnsUsed(doc.turns), triggers };
}

/** One named argument of a recorded call (its args are stored JSON: any shape). */
function argOf(call: CallView, name: string): unknown {
  const { args } = call;
  return typeof args === 'object' && args !== null && name in args
    ? (args as Record<string, unknown>)[name]
    : undefined;
}
