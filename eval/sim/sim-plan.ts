// The simulated model's next intended action, from what it remembers (sim-absorb.ts keeps that up to
// date from the prompts) and its seeded weaknesses (SIM_RATES in sim-model.ts). The plan of a
// competent agent — locate, read, edit, test, stop — bent at the documented rates.
import { editEntityTool } from '../../primitives/tools/edit-entity/tool.js';
import { readEntityTool } from '../../primitives/tools/read-entity/tool.js';
import { runTestTool } from '../../primitives/tools/run-test/tool.js';
import { searchCodeTool } from '../../primitives/tools/search-code/tool.js';
import { searchSymbolTool } from '../../primitives/tools/search-symbol/tool.js';
import { SIM_EDIT_ATTEMPTS, SIM_MAX_CALLS, SIM_RATES, type SimEdit, type SimTask } from './sim-rates.js';
import type { SimPrompt } from './sim-prompt.js';

export type Draw = (name: string, ...keys: Array<string | number>) => number;

export interface SimIntent {
  tool: string;
  args: Record<string, unknown>;
  /** edit_entity only: which gold edit it is for, and whether it is the wrong (comment-only) edit. */
  edit?: { index: number; wrong: boolean };
}

/** Edit state per gold edit: not yet made, committed right, committed wrong, to be redone after a failing test. */
type EditState = 'todo' | 'done' | 'wrong' | 'redo';

export interface SimMemory {
  calls: number;
  /** The action last intended (even when noise replaced it on the wire). */
  last: SimIntent | null;
  /** The noise sent instead of `last`, if any: the next observation answers the noise. */
  lastNoise: 'malformed' | 'unknown_tool' | null;
  located: boolean;
  searches: number;
  /** selector → body last read (dropped when the entity changes or an edit does not apply). */
  bodies: Map<string, string>;
  edits: EditState[];
  editAttempts: number[];
  committedAny: boolean;
  untested: boolean;
  testPassed: boolean;
  giveUp: boolean;
  stopNow: boolean;
  /** An underspecified task the model guessed wrong: its edits implement the wrong behaviour. */
  misread: boolean;
  answered: boolean;
  /** How often an action (by key) came back without a usable result. */
  retries: Map<string, number>;
}

export const WRONG_EDIT_COMMENT = '# handle the case from the issue';

export function intentKey(intent: SimIntent): string {
  const a = intent.args;
  return `${intent.tool}:${String(a.selector ?? a.query ?? a.target ?? '')}`;
}

export function simIntent(m: SimMemory, task: SimTask, prompt: SimPrompt, n: number, draw: Draw): SimIntent {
  const edits = task.goldEdits;
  if (n === 0 && !m.answered) {
    if (task.underspecified) {
      const rate = prompt.encouragesAsking
        ? SIM_RATES.askUnderspecifiedEncouraged
        : SIM_RATES.askUnderspecified;
      if (draw('ask_underspecified') < rate) return ask(prompt.issue);
      m.misread = draw('guess_right') >= SIM_RATES.guessRight;
    } else if (draw('ask_unneeded') < SIM_RATES.askWhenUnneeded) {
      return ask(prompt.issue);
    }
    if (edits.length > 0 && draw('edit_before_read') < SIM_RATES.editBeforeRead)
      return editIntent(m, task, 0, false, draw);
  }
  if (m.stopNow) return stop('the fix is in');
  if (m.testPassed) return stop('the repro test passes');
  if (m.giveUp)
    return task.underspecified && !m.answered
      ? ask(prompt.issue)
      : stop('the repro test still fails and I cannot tell why');
  if (n >= SIM_MAX_CALLS) return stop('giving up: no progress');

  if (!m.located && m.bodies.size === 0 && !m.committedAny && m.searches < 2)
    return search(m, task, prompt, draw);
  for (let j = 0; j < edits.length; j++) {
    if (m.edits[j] !== 'todo' && m.edits[j] !== 'redo') continue;
    const selector = edits[j]!.selector;
    if ((m.editAttempts[j] ?? 0) >= SIM_EDIT_ATTEMPTS) return stop(`the edit of ${selector} does not apply`);
    if (m.bodies.has(selector)) return editIntent(m, task, j, true, draw);
    if ((m.retries.get(`read_entity:${selector}`) ?? 0) < 2)
      return { tool: readEntityTool.name, args: { selector, body: true } };
    return editIntent(m, task, j, false, draw);
  }
  if (m.untested && (m.retries.get(`run_test:${task.repro}`) ?? 0) < 2)
    return { tool: runTestTool.name, args: { target: task.repro } };
  return stop(m.untested ? 'the repro test cannot be run' : 'done');
}

function ask(issue: string): SimIntent {
  return {
    tool: 'ask_user',
    args: {
      question: `The issue leaves the expected behaviour open (${titleOf(issue)}). Which behaviour do you want?`,
    },
  };
}

function stop(reason: string): SimIntent {
  return { tool: 'stop', args: { reason } };
}

function search(m: SimMemory, task: SimTask, prompt: SimPrompt, draw: Draw): SimIntent {
  const selector = task.goldEdits[0]?.selector ?? '';
  const preferred = task.goldLabels[0] === searchCodeTool.name ? searchCodeTool.name : searchSymbolTool.name;
  const other = preferred === searchCodeTool.name ? searchSymbolTool.name : searchCodeTool.name;
  // Retrieval narrows the choice: a tool the prompt does not offer is not the first pick.
  const first = prompt.offered.includes(preferred) || !prompt.offered.includes(other) ? preferred : other;
  if (m.searches === 0) {
    const name = entityName(selector);
    const query =
      draw('wrong_search') < SIM_RATES.wrongSearch
        ? titleOf(prompt.issue).split(/\s+/).slice(0, 4).join(' ')
        : first === searchCodeTool.name
          ? name.replace(/_/g, ' ')
          : name;
    return { tool: first, args: { query } };
  }
  return { tool: searchSymbolTool.name, args: { query: entityName(selector) } };
}

/** The edit for gold edit j: right, wrong (a comment and no fix), or with a mis-remembered search. */
function editIntent(m: SimMemory, task: SimTask, j: number, informed: boolean, draw: Draw): SimIntent {
  const gold = task.goldEdits[j]!;
  const attempt = m.editAttempts[j] ?? 0;
  const right: SimIntent = {
    tool: editEntityTool.name,
    args: { selector: gold.selector, search: gold.search, replace: gold.replace },
    edit: { index: j, wrong: false },
  };
  if (m.edits[j] === 'redo') return right;
  if (!informed && attempt === 0 && draw('blind_search_wrong', j) < SIM_RATES.blindSearchWrong) {
    return { ...right, args: { ...right.args, search: misremember(gold.search) } };
  }
  const rate = m.misread ? 1 : informed ? SIM_RATES.wrongEditInformed : SIM_RATES.wrongEditBlind;
  if (draw('wrong_edit', j, attempt) >= rate) return right;
  const whole = linePrefix(m.bodies.get(gold.selector), gold) + gold.search;
  const indent = /^[ \t]*/.exec(whole)![0];
  return {
    tool: editEntityTool.name,
    args: { selector: gold.selector, search: whole, replace: `${indent}${WRONG_EDIT_COMMENT}\n${whole}` },
    edit: { index: j, wrong: true },
  };
}

/** What precedes the search on its line: from the body the model read, else the task's hint. */
function linePrefix(body: string | undefined, gold: SimEdit): string {
  const at = body?.indexOf(gold.search) ?? -1;
  if (body !== undefined && at >= 0) return body.slice(body.lastIndexOf('\n', at - 1) + 1, at);
  return gold.linePrefix ?? '';
}

/** A search string remembered slightly wrong: one space doubled, else a space after '(', else a trailing ' #'. */
function misremember(search: string): string {
  const space = /\S( )\S/.exec(search);
  if (space) return `${search.slice(0, space.index + 1)}  ${search.slice(space.index + 2)}`;
  const paren = search.indexOf('(');
  if (paren >= 0) return `${search.slice(0, paren + 1)} ${search.slice(paren + 1)}`;
  return `${search} #`;
}

/** The last name of a selector that is not a dunder (`shop.cart.Cart.__init__` → `Cart`). */
function entityName(selector: string): string {
  const parts = selector.split('.');
  return [...parts].reverse().find((p) => !/^__\w+__$/.test(p)) ?? parts.at(-1) ?? selector;
}

function titleOf(issue: string): string {
  const first = issue.split('\n').find((line) => line.trim() !== '') ?? '';
  return first.replace(/^#+\s*/, '').trim();
}
