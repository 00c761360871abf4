// How the simulated model takes in a prompt before it answers: the ledger lines (did a search or a
// trigger already name the entity?) and the latest observation, read against the action it last
// intended. The observation shapes are the loop's (policy/observation-text.ts): a rejection
// `{"ok":false,"rejected":true,...}`, a no-op `{"noop":true,...}`, or `{"kind","target",...,"data"}`
// whose `data` is the primitive's result — an envelope `{ok,error,data}` for read/search/edit, and
// `{passed,exit_code,...}` for a test.
import { editEntityTool } from '../../primitives/tools/edit-entity/tool.js';
import { readEntityTool } from '../../primitives/tools/read-entity/tool.js';
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import { searchCodeTool } from '../../primitives/tools/search-code/tool.js';
import { searchSymbolTool } from '../../primitives/tools/search-symbol/tool.js';
import { SIM_RATES, type SimTask } from './sim-rates.js';
import { intentKey, type Draw, type SimMemory } from './sim-plan.js';
import { classifyObservation, type SimPrompt } from './sim-prompt.js';
import { isRecord } from '../../runtime/text/is-record.js';

export function absorb(m: SimMemory, task: SimTask, prompt: SimPrompt, draw: Draw): void {
  if (!m.located && task.goldEdits.some((e) => prompt.ledger.includes(e.selector))) m.located = true;
  const last = m.last;
  if (!last || m.lastNoise) return; // the observation answers the noise, not the intent: try the intent again
  const bump = (): void => {
    m.retries.set(intentKey(last), (m.retries.get(intentKey(last)) ?? 0) + 1);
  };
  const obs = classifyObservation(prompt.latest);

  if (obs.type === 'rejected') {
    // "precondition failed: no evidence for selector S": the model now knows where, and reads S first.
    if (obs.reason.startsWith('precondition failed: no evidence for selector ')) m.located = true;
    else bump();
    return;
  }
  if (obs.type === 'noop') return bump();
  if (obs.type === 'answer') {
    m.answered = true;
    m.misread = false;
    return;
  }
  if (obs.type !== 'result') return;
  absorbResult(m, last, task, obs.data, draw, bump);
}

type Intent = NonNullable<SimMemory['last']>;

/** A tool result answering the action the model last intended. */
function absorbResult(
  m: SimMemory,
  last: Intent,
  task: SimTask,
  data: unknown,
  draw: Draw,
  bump: () => void,
): void {
  // The model reads what it was shown, not a checked result: any JSON, field by field.
  const result = isRecord(data) ? data : null;
  const inner = result && isRecord(result.data) ? result.data : null;
  const ok = result?.ok === true;
  switch (last.tool) {
    case searchSymbolTool.name:
    case searchCodeTool.name: {
      m.searches++;
      const text = JSON.stringify(data ?? {});
      if (task.goldEdits.some((e) => text.includes(`"${e.selector}"`))) m.located = true;
      return;
    }
    case readEntityTool.name: {
      const body = inner?.body;
      if (ok && typeof body === 'string') m.bodies.set(String(last.args.selector), body);
      else bump();
      return;
    }
    case editEntityTool.name:
      return absorbEdit(m, last, ok && inner?.committed === true, draw, bump);
    case runTestTool.name:
      return absorbTest(m, result?.passed, bump);
    default:
      return;
  }
}

function absorbEdit(m: SimMemory, last: Intent, committed: boolean, draw: Draw, bump: () => void): void {
  const j = last.edit?.index ?? 0;
  const selector = String(last.args.selector);
  m.located = true;
  m.bodies.delete(selector); // the entity changed, or the edit did not apply: read it again
  if (committed) {
    m.edits[j] = last.edit?.wrong ? 'wrong' : 'done';
    m.untested = true;
    const first = !m.committedAny;
    m.committedAny = true;
    if (first && draw('premature_stop') < SIM_RATES.prematureStop) m.stopNow = true;
  } else {
    m.editAttempts[j] = (m.editAttempts[j] ?? 0) + 1;
    bump();
  }
}

function absorbTest(m: SimMemory, passed: unknown, bump: () => void): void {
  if (typeof passed !== 'boolean') return bump(); // no test result (e.g. the call was suppressed)
  m.untested = false;
  if (passed) {
    m.testPassed = true;
    return;
  }
  // A failing test: the edits the model knows were guesses get redone; otherwise it is stuck.
  const wrong = m.edits.map((s, j) => (s === 'wrong' ? j : -1)).filter((j) => j >= 0);
  if (m.misread || wrong.length === 0) m.giveUp = true;
  else for (const j of wrong) m.edits[j] = 'redo';
}
