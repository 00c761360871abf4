// The loop state a resumed run starts from. A run that ended through the loop saved it (turns used,
// the triggers' memory) under config.loop_state. A run whose process died never got there — or
// saved it at an earlier ending and then died in a later segment — so its state is rebuilt from the
// rows the triggers left: which fired, which edits were committed, which of them a post-patch test
// has covered. Rebuilding only reads what policy/triggers.ts wrote, with its own key formats.
import type { LoopState } from '../../policy/loop.js';
import { patchKey, type TriggerSnapshot } from '../../policy/triggers.js';
import { turnsUsed } from './loop-turns.js';
import type { RunDocument } from './run-document.js';

/** Outcomes written when a run's process went away instead of its loop ending it. */
export function diedMidRun(outcome: string | null): boolean {
  return outcome === null || outcome === 'interrupted';
}

export function loopStateFor(doc: RunDocument): { state: LoopState; source: 'saved' | 'rebuilt' } {
  const saved = savedState(doc.run.config.loop_state);
  if (saved && !diedMidRun(doc.run.outcome)) return { state: saved, source: 'saved' };
  return { state: rebuiltState(doc), source: 'rebuilt' };
}

export function rebuiltState(doc: RunDocument): LoopState {
  const calls = doc.turns.flatMap((t) => t.calls);
  const fired = new Set<string>();
  for (const c of calls) {
    if (c.origin === 'trigger' && c.tool === 'search_symbol')
      fired.add(`symbol:${String((c.args as { query?: unknown }).query)}`);
  }
  const editSelector = new Map(
    calls
      .filter((c) => c.tool === 'edit_entity')
      .map((c) => [c.id, (c.args as { selector?: unknown }).selector]),
  );
  for (const e of doc.edits) {
    const selector = (e.call_id ? editSelector.get(e.call_id) : undefined) ?? e.selector;
    fired.add(`lint:${String(selector)}@${e.id}`);
  }
  const editsBefore = (at: string) => doc.edits.filter((e) => e.created_at <= at).map((e) => String(e.id));
  // A post-patch test that did not complete (its process died in it) covered nothing: it fires again.
  const tests = calls.filter(
    (c) => c.origin === 'trigger' && c.tool === 'run_test' && c.status === 'completed',
  );
  for (const t of tests) fired.add(patchKey(editsBefore(t.created_at)));
  const lastTest = tests.at(-1)?.created_at;
  const triggers: TriggerSnapshot = {
    fired: [...fired],
    committedEdits: doc.edits.map((e) => String(e.id)),
    untestedEdits: doc.edits.filter((e) => lastTest === undefined || e.created_at > lastTest).length,
  };
  return { turnsUsed: turnsUsed(doc.turns), triggers };
}

function savedState(raw: unknown): LoopState | null {
  const s = raw as {
    turnsUsed?: unknown;
    triggers?: { fired?: unknown; committedEdits?: unknown; untestedEdits?: unknown };
  } | null;
  if (!s || typeof s !== 'object' || typeof s.turnsUsed !== 'number' || !s.triggers) return null;
  const { fired, committedEdits, untestedEdits } = s.triggers;
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (!strings(fired) || !strings(committedEdits) || typeof untestedEdits !== 'number') return null;
  return { turnsUsed: s.turnsUsed, triggers: { fired, committedEdits, untestedEdits } };
}
