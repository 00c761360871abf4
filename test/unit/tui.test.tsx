// The TUI's components with ink-testing-library: events in, screen out; the inline question's keys.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../policy/events.js';
import { App } from '../../cli/tui/app.js';
import { ViewStore } from '../../cli/tui/store.js';
import { tick, frameWith, demoInit } from '../helpers/ink-frames.js';

const init = demoInit({ max_cost_usd: 1.5 });

describe('TUI', () => {
  it('shows the header, the turn transcript, trust marks and the footer', async () => {
    const store = new ViewStore(false);
    const ui = render(<App store={store} />);
    for (const e of [
      init,
      { type: 'index', phase: 'started' },
      { type: 'index', phase: 'finished', files: 120, entities: 900, parsed: 3, seconds: 0.21 },
      { type: 'turn', turn: 1 },
      { type: 'toolset', turn: 1, tools: ['read_entity', 'run_test'], truncated: false, source: 'map' },
      {
        type: 'proposal',
        turn: 1,
        call_id: 'c-000000000001',
        tool: 'run_test',
        args: { target: 'tests/' },
        origin: 'model',
      },
      {
        type: 'execution',
        phase: 'finished',
        turn: 1,
        call_id: 'c',
        tool: 'run_test',
        origin: 'model',
        exit_code: 1,
        timed_out: false,
        ms: 1500,
      },
      {
        type: 'observation',
        turn: 1,
        call_id: 'c',
        kind: 'test',
        target: 'tests/',
        trust: 'unverified',
        caveat: 'exit-code consistency: passed is true but exit_code is 1',
        summary: 'failed, exit 1',
      },
      {
        type: 'usage',
        turn: 1,
        tokens_in: 100,
        tokens_out: 10,
        cost_usd: 0.01,
        total_tokens: 110,
        total_cost_usd: 0.01,
      },
      { type: 'turn', turn: 2 },
      { type: 'proposal', turn: 2, call_id: 'c-000000000002', tool: 'bash', args: {}, origin: 'model' },
      {
        type: 'rejection',
        turn: 2,
        call_id: 'c-000000000002',
        tool: 'bash',
        reason: 'unknown tool: bash',
        reselect: true,
      },
    ] as LoopEvent[])
      store.push(e);
    await tick();
    const frame = ui.lastFrame()!;
    expect(frame).toContain('piper-agent /repo');
    expect(frame).toContain('run r-1');
    expect(frame).toContain('model script:demo.jsonl');
    expect(frame).toContain('policy policy · budget 30 turns, $1.5');
    expect(frame).toContain('repro tests/test_words.py');
    expect(frame).toContain('code index: 120 files, 900 entities (117 from the cache) in 0.2 s');
    expect(frame).not.toContain('indexing the repository');
    expect(frame).toContain('◆ trusted · ⚠ unverified · ✓ passed · ✗ failed');
    expect(frame).toContain('tools: read_entity, run_test');
    expect(frame).toContain('▸ model run_test target="tests/"');
    expect(frame).toContain('sandbox exit 1 in 1.5 s');
    // The trust mark and the test's own mark are two glyphs.
    expect(frame).toContain('⚠ test: ✗ failed, exit 1 [unverified: exit-code consistency');
    expect(frame).toContain('✗ rejected: unknown tool: bash (re-selecting)');
    expect(frame).toContain('turn 2/30 · 110 tokens · $0.0100');
    ui.unmount();
  });

  it('takes an inline answer with Enter, and a decline with Esc', async () => {
    const store = new ViewStore(true);
    const ui = render(<App store={store} />);
    store.push(init);
    store.push({ type: 'turn', turn: 1 });
    store.push({ type: 'ask_user', turn: 1, question: 'Exactly n words?' });
    const answer = store.ask('Exactly n words?');
    await frameWith(ui, 'Enter answers · Esc declines');
    await tick();
    ui.stdin.write('yes, n');
    await frameWith(ui, '› yes, n');
    ui.stdin.write('\r');
    expect(await answer).toBe('yes, n');
    store.push({ type: 'answer', turn: 1, answer: 'yes, n' });
    expect(await frameWith(ui, '↳ yes, n')).not.toContain('Enter answers');

    store.push({ type: 'ask_user', turn: 1, question: 'Again?' });
    const declined = store.ask('Again?');
    await frameWith(ui, 'Again?');
    await tick();
    ui.stdin.write('\u001b');
    expect(await declined).toBeNull();
    ui.unmount();
  });

  it('ends on the final screen: outcome, verification, diff, run id and undo', async () => {
    const store = new ViewStore(false);
    const ui = render(<App store={store} />);
    store.push(init);
    store.push({
      type: 'result',
      run_id: 'r-1',
      outcome: 'resolved',
      reason: 'fixed',
      verified: true,
      exit_code: 0,
      turns: 3,
      tokens: 900,
      cost_usd: null,
      diff: '--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n',
    });
    await tick();
    const frame = ui.lastFrame()!;
    expect(frame).toContain('resolved: fixed');
    expect(frame).toContain('repro test passed in the sandbox after the last edit: yes');
    expect(frame).toContain('+b');
    expect(frame).toContain('undo: piper-agent undo r-1');
    ui.unmount();
  });

  it("lists a regressed fix's broken tests on the final screen, with the first lines of each failure", async () => {
    const store = new ViewStore(false);
    const ui = render(<App store={store} />);
    store.push(init);
    store.push({ type: 'suite', phase: 'started', command: 'python -m pytest' });
    store.push({
      type: 'result',
      run_id: 'r-2',
      outcome: 'regressed',
      reason:
        'the repro test (tests/test_words.py) passes, but 1 test(s) that passed before the fix fail, are muted or are gone after it',
      verified: true,
      exit_code: 4,
      turns: 3,
      tokens: 900,
      cost_usd: null,
      diff: '',
      suite: {
        status: 'regressed',
        command: 'python -m pytest',
        passed_both: 3,
        regressions: [
          { test: 'tests/test_report.py::test_summary', lines: ['AssertionError: assert False'] },
        ],
        failing_before: ['tests/test_old.py::test_known'],
        base_cached: false,
        seconds: 1.5,
      },
    });
    await tick();
    // Words wrapped at the screen's width read as one line.
    const frame = ui.lastFrame()!.replace(/\s+/g, ' ');
    expect(frame).toContain('regressed: the repro test (tests/test_words.py) passes');
    expect(frame).toContain('suite: 1 regression(s): tests/test_report.py::test_summary');
    expect(frame).toContain("failing before and after (not this fix's): tests/test_old.py::test_known");
    expect(frame).toContain('AssertionError: assert False');
    ui.unmount();
  });

  it('shows the model thinking with its name, its words dimmed, and failed tests by name', async () => {
    const store = new ViewStore(false);
    const ui = render(<App store={store} />);
    store.push(init);
    store.push({ type: 'turn', turn: 1 });
    store.push({ type: 'toolset', turn: 1, tools: ['run_test'], truncated: false, source: 'map' });
    expect(await frameWith(ui, 'thinking')).toMatch(/thinking \d+\.\d s · script:demo\.jsonl/);
    store.push({
      type: 'usage',
      turn: 1,
      tokens_in: 1,
      tokens_out: 1,
      cost_usd: null,
      total_tokens: 2,
      total_cost_usd: null,
    });
    store.push({
      type: 'proposal',
      turn: 1,
      call_id: 'c-000000000001',
      tool: 'run_test',
      args: { target: 'tests/' },
      origin: 'model',
      text: 'First, see which tests fail.',
    });
    store.push({
      type: 'observation',
      turn: 1,
      call_id: 'c',
      kind: 'test',
      target: 'tests/',
      trust: 'trusted',
      summary: 'failed, exit 1 (1 passed, 1 failed, 0 errors)',
      failures: [{ test: 'tests/test_words.py::test_n', line: "AssertionError: assert ['a'] == ['a', 'b']" }],
    });
    const frame = await frameWith(ui, 'test_n');
    expect(frame).not.toContain('thinking');
    expect(frame).toContain('“First, see which tests fail.”');
    expect(frame).toContain('◆ test: ✗ failed, exit 1');
    expect(frame).toContain('✗ tests/test_words.py::test_n');
    expect(frame).toContain("AssertionError: assert ['a'] == ['a', 'b']");
    store.push({
      type: 'result',
      run_id: 'r-1',
      outcome: 'ask_user',
      reason: 'the model asked the operator a question',
      question: 'Exactly n?',
      verified: false,
      exit_code: 3,
      turns: 1,
      tokens: 2,
      cost_usd: null,
      diff: '',
    });
    const end = await frameWith(ui, 'resume r-1');
    expect(end).toContain('last test run (tests/) failed:');
    expect(end.split('tests/test_words.py::test_n')).toHaveLength(3); // in the turn and on the final screen
    expect(end).toContain('answer: piper-agent resume r-1 --answer "..."');
    expect(end).not.toContain('undo');
    ui.unmount();
  });

  it('on Ctrl-C offers resume, and undo only when the run edited', async () => {
    const store = new ViewStore(false);
    const ui = render(<App store={store} />);
    store.push(init);
    store.interrupt();
    const frame = await frameWith(ui, 'interrupted');
    expect(frame).toContain('continue: piper-agent resume r-1');
    expect(frame).not.toContain('undo');
    store.push({
      type: 'observation',
      turn: 1,
      call_id: 'c',
      kind: 'edit',
      target: 'x.f',
      trust: 'trusted',
      summary: 'committed, lint clean',
    });
    expect(await frameWith(ui, 'undo: piper-agent undo r-1')).toContain('continue: piper-agent resume r-1');
    ui.unmount();
  });

  it('stores an answer without control characters', async () => {
    const store = new ViewStore(true);
    const answer = store.ask('q');
    store.answer('  yes\u001b[2J, n\u0007 words\t ');
    expect(await answer).toBe('yes[2J, n words');
  });
});
