// The simulated model (`--model sim:SEED`): deterministic for a seed and a task, weak at its
// documented rates, and reacting to the observations the loop writes into the prompt.
import { describe, expect, it } from 'vitest';
import { parseSimSpec, SIM_RATES, simDraw, SimModel, type SimTask } from '../../eval/sim/sim-model.js';
import { WRONG_EDIT_COMMENT } from '../../eval/sim/sim-plan.js';
import { renderForModel } from '../../policy/observation-text.js';
import { buildSelectionPrompt, POLICY_PREAMBLE } from '../../policy/prompt.js';
import { parseProposal } from '../../policy/proposal.js';
import { LOOPS, type PolicyName as PolicyArm } from '../../policy/loop-settings.js';
import { newPromptBoundary } from '../../runtime/ledger/prompts.js';

/** The fence boundary of the prompts built here, as a run's would be. */
const BOUNDARY = newPromptBoundary();

const SELECTOR = 'pager.pages.page_count';
const BODY = 'def page_count(total, per_page):\n    """How many pages."""\n    return total // per_page';
const task = (id: string, underspecified = false): SimTask => ({
  id,
  underspecified,
  repro: 'tests/test_pages.py::test_partial',
  goldLabels: underspecified ? ['ask_user'] : ['search_symbol', 'read_entity', 'edit_entity'],
  goldEdits: [
    {
      selector: SELECTOR,
      search: '    return total // per_page',
      replace: '    return -(-total // per_page)',
      linePrefix: '',
    },
  ],
});

const ISSUE = '# The last page is never counted\n\nWith 11 items at 5 a page I get 2 pages.';

function prompt(
  latest: string | null,
  arm: PolicyArm = 'policy',
  ledger: Array<{ kind: string; target: string; result: unknown }> = [],
) {
  return buildSelectionPrompt({
    loop: LOOPS[arm],
    tools: ['search_symbol', 'read_entity', 'edit_entity', 'run_test'],
    history: ledger,
    latestObservation: latest,
    issueText: ISSUE,
    boundary: BOUNDARY,
  }).messages;
}

/** An observation rendered exactly as the loop renders it for the model. */
function observed(kind: string, target: string, result: unknown, arm: PolicyArm = 'policy'): string {
  return renderForModel(
    { kind, target, result: JSON.stringify(result), trust: 'trusted', caveat: null },
    LOOPS[arm],
  );
}

async function reply(model: SimModel, messages: ReturnType<typeof prompt>) {
  return model.complete({ messages, temperature: 0, maxTokens: 256 });
}

const noNoise = (seed: number, id: string, n: number) =>
  simDraw(seed, id, 'malformed_json', n) >= SIM_RATES.malformedJson &&
  simDraw(seed, id, 'unknown_tool', n) >= SIM_RATES.unknownTool;

/** The first seed for which `ok` holds: the tests name the draws they need instead of hard-coding a seed. */
function seedWhere(ok: (seed: number) => boolean): number {
  for (let seed = 0; seed < 100_000; seed++) if (ok(seed)) return seed;
  throw new Error('no seed found');
}

describe('sim model', () => {
  it('parses sim:SEED and refuses a bad seed', () => {
    expect(parseSimSpec('sim:7')).toBe(7);
    expect(parseSimSpec('openai:x')).toBeNull();
    expect(() => parseSimSpec('sim:abc')).toThrow(/whole-number seed/);
  });

  it('is deterministic: same seed and task, same prompts → same replies, same usage', async () => {
    const run = async (seed: number) => {
      const model = new SimModel(seed, task('pb-x'));
      const a = await reply(model, prompt(null));
      const b = await reply(
        model,
        prompt(
          observed('search', 'page_count', {
            ok: true,
            error: null,
            data: { matches: [{ selector: SELECTOR }] },
          }),
        ),
      );
      return [a, b].map((r) => ({ text: r.text, usage: r.usage, cost: r.costUsd }));
    };
    for (const seed of [1, 2, 3, 42]) expect(await run(seed)).toEqual(await run(seed));
    const texts = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(async (s) => JSON.stringify(await run(s))));
    expect(new Set(texts).size).toBeGreaterThan(1); // the seed matters
  });

  it('reports usage as characters / 4 and a non-zero cost at the sim price', async () => {
    const messages = prompt(null);
    const r = await reply(new SimModel(1, task('pb-x')), messages);
    const chars = messages.map((m) => m.content).join('\n').length;
    expect(r.usage.promptTokens).toBe(Math.ceil(chars / 4));
    expect(r.usage.completionTokens).toBe(Math.ceil((r.text ?? '').length / 4));
    expect(r.costUsd).toBeGreaterThan(0);
    expect(r.model).toBe('sim:1');
  });

  it('errs at roughly the documented rates (first reply over 4000 tasks)', async () => {
    const N = 4000;
    let malformed = 0;
    let unknown = 0;
    let asked = 0;
    let blindEdit = 0;
    let clean = 0;
    for (let i = 0; i < N; i++) {
      const r = await reply(new SimModel(1, task(`t-${i}`)), prompt(null));
      const parsed = parseProposal(r.text ?? '');
      if (!parsed.ok) malformed++;
      else if (['bash', 'grep', 'open_file'].includes(parsed.proposal.tool)) unknown++;
      else {
        clean++;
        if (parsed.proposal.tool === 'ask_user') asked++;
        if (parsed.proposal.tool === 'edit_entity') blindEdit++;
      }
    }
    expect(malformed / N).toBeCloseTo(SIM_RATES.malformedJson, 1);
    expect(Math.abs(malformed / N - SIM_RATES.malformedJson)).toBeLessThan(0.015);
    expect(Math.abs(unknown / N - (1 - SIM_RATES.malformedJson) * SIM_RATES.unknownTool)).toBeLessThan(0.015);
    expect(Math.abs(asked / clean - SIM_RATES.askWhenUnneeded)).toBeLessThan(0.015);
    expect(
      Math.abs(blindEdit / clean - (1 - SIM_RATES.askWhenUnneeded) * SIM_RATES.editBeforeRead),
    ).toBeLessThan(0.03);
  });

  it('asks on underspecified tasks more often when the prompt encourages it', async () => {
    const N = 2000;
    const rate = async (arm: PolicyArm) => {
      let asked = 0;
      let clean = 0;
      for (let i = 0; i < N; i++) {
        const r = await reply(new SimModel(3, task(`u-${i}`, true)), prompt(null, arm));
        const p = parseProposal(r.text ?? '');
        // The intended action is what counts here (noise on the wire is measured above).
        if (!p.ok || ['bash', 'grep', 'open_file'].includes(p.proposal.tool)) continue;
        clean++;
        if (p.proposal.tool === 'ask_user') asked++;
      }
      return asked / clean;
    };
    expect(POLICY_PREAMBLE).toMatch(/ask_user and stop are valid and encouraged/);
    expect(Math.abs((await rate('policy')) - SIM_RATES.askUnderspecifiedEncouraged)).toBeLessThan(0.04);
    expect(Math.abs((await rate('current')) - SIM_RATES.askUnderspecified)).toBeLessThan(0.04);
  });

  it('reacts to an evidence-gate rejection by reading the selector', async () => {
    const id = 'pb-react';
    // A seed whose model edits before reading (first call) and sends both replies without noise.
    const seed = seedWhere(
      (s) =>
        simDraw(s, id, 'ask_unneeded') >= SIM_RATES.askWhenUnneeded &&
        simDraw(s, id, 'edit_before_read') < SIM_RATES.editBeforeRead &&
        noNoise(s, id, 0) &&
        noNoise(s, id, 1),
    );
    const model = new SimModel(seed, task(id));
    const first = parseProposal((await reply(model, prompt(null))).text ?? '');
    expect(first.ok && first.proposal.tool).toBe('edit_entity');
    const rejection = {
      ok: false,
      rejected: true,
      tool: 'edit_entity',
      reason: `precondition failed: no evidence for selector ${SELECTOR}`,
    };
    const second = parseProposal((await reply(model, prompt(JSON.stringify(rejection)))).text ?? '');
    expect(second.ok && second.proposal).toEqual({
      tool: 'read_entity',
      args: { selector: SELECTOR, body: true },
    });
  });

  it('reacts to a failing test after its wrong edit: reads again and makes the right edit', async () => {
    const id = 'pb-fail';
    // A seed whose model searches first, makes the wrong edit after reading, does not stop early, and sends clean replies.
    const seed = seedWhere(
      (s) =>
        simDraw(s, id, 'ask_unneeded') >= SIM_RATES.askWhenUnneeded &&
        simDraw(s, id, 'edit_before_read') >= SIM_RATES.editBeforeRead &&
        simDraw(s, id, 'wrong_search') >= SIM_RATES.wrongSearch &&
        simDraw(s, id, 'wrong_edit', 0, 0) < SIM_RATES.wrongEditInformed &&
        simDraw(s, id, 'premature_stop') >= SIM_RATES.prematureStop &&
        [0, 1, 2, 3, 4, 5, 6, 7].every((n) => noNoise(s, id, n)),
    );
    const model = new SimModel(seed, task(id));
    const arm: PolicyArm = 'current';
    const step = async (latest: string | null) =>
      parseProposal((await reply(model, prompt(latest, arm))).text ?? '');
    const tools: string[] = [];
    const s1 = await step(null);
    tools.push(s1.ok ? s1.proposal.tool : 'noop');
    const s2 = await step(
      observed(
        'search',
        'page_count',
        { ok: true, error: null, data: { matches: [{ selector: SELECTOR, kind: 'function' }] } },
        arm,
      ),
    );
    tools.push(s2.ok ? s2.proposal.tool : 'noop');
    const s3 = await step(
      observed(
        'read',
        SELECTOR,
        { ok: true, error: null, data: { entity: { selector: SELECTOR }, body: BODY } },
        arm,
      ),
    );
    expect(s3.ok && s3.proposal.args).toEqual({
      selector: SELECTOR,
      search: '    return total // per_page',
      replace: `    ${WRONG_EDIT_COMMENT}\n    return total // per_page`,
    });
    const s4 = await step(
      observed(
        'edit',
        SELECTOR,
        { ok: true, error: null, data: { committed: true, lint_clean: true, diff: '' } },
        arm,
      ),
    );
    tools.push(s4.ok ? s4.proposal.tool : 'noop');
    const s5 = await step(
      observed(
        'test',
        'tests/test_pages.py::test_partial',
        { passed: false, exit_code: 1, output: 'E   assert 2 == 3', timed_out: false },
        arm,
      ),
    );
    tools.push(s5.ok ? s5.proposal.tool : 'noop');
    const s6 = await step(
      observed(
        'read',
        SELECTOR,
        { ok: true, error: null, data: { entity: { selector: SELECTOR }, body: BODY } },
        arm,
      ),
    );
    expect(tools).toEqual(['search_symbol', 'read_entity', 'run_test', 'read_entity']);
    expect(s6.ok && s6.proposal).toEqual({
      tool: 'edit_entity',
      args: {
        selector: SELECTOR,
        search: '    return total // per_page',
        replace: '    return -(-total // per_page)',
      },
    });
    const s7 = await step(
      observed(
        'edit',
        SELECTOR,
        { ok: true, error: null, data: { committed: true, lint_clean: true, diff: '' } },
        arm,
      ),
    );
    expect(s7.ok && s7.proposal.tool).toBe('run_test'); // the new edit is untested yet
    const s8 = await step(
      observed(
        'test',
        'tests/test_pages.py::test_partial',
        { passed: true, exit_code: 0, output: '1 passed', timed_out: false },
        arm,
      ),
    );
    expect(s8.ok && s8.proposal).toEqual({ tool: 'stop', args: { reason: 'the repro test passes' } });
  });

  it('uses a trigger result in the ledger instead of searching again', async () => {
    const id = 'pb-trigger';
    const seed = seedWhere(
      (s) =>
        simDraw(s, id, 'ask_unneeded') >= SIM_RATES.askWhenUnneeded &&
        simDraw(s, id, 'edit_before_read') >= SIM_RATES.editBeforeRead &&
        noNoise(s, id, 0),
    );
    const ledger = [
      {
        kind: 'symbol',
        target: 'pager.pages.page_count',
        result: { query: 'pager.pages.page_count', matches: [{ selector: SELECTOR }] },
      },
    ];
    const r = parseProposal(
      (await reply(new SimModel(seed, task(id)), prompt(null, 'policy', ledger))).text ?? '',
    );
    expect(r.ok && r.proposal).toEqual({ tool: 'read_entity', args: { selector: SELECTOR, body: true } });
  });
});
