// Terminal injection: untrusted text reaches a terminal with its control
// characters shown as visible escapes — in the text renderer, the TUI and `ledger runs` — while the
// JSON formats keep the exact string.
import { PassThrough } from 'node:stream';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { renderRunTable, type RunListEntry } from '../../cli/ledger/run-table.js';
import { headlessSink } from '../../cli/render/headless.js';
import { hasControls, inert, inertDeep, inertJson } from '../../runtime/text/inert.js';
import { App } from '../../cli/tui/app.js';
import { ViewStore } from '../../cli/tui/store.js';
import type { LoopEvent } from '../../policy/events.js';

/** Title change, screen clear and an OSC 8 link: what a hostile test or model writes. */
export const HOSTILE = '\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\';
const ESC = '\x1b';

describe('inert', () => {
  it('shows ESC-started sequences as text: \\x1b, four visible characters', () => {
    expect(inert(HOSTILE)).toBe('\\x1b]0;pwned\\x07\\x1b[2J\\x1b]8;;http://x\\x1b\\link\\x1b]8;;\\x1b\\');
    expect(inert(HOSTILE)).not.toContain(ESC);
  });
  it('keeps newline and tab; escapes CR, other C0, DEL, C1 and bidi overrides', () => {
    expect(inert('a\tb\nc')).toBe('a\tb\nc');
    expect(inert('ok\rFAIL')).toBe('ok\\x0dFAIL');
    expect(inert('\x00\x08\x0b\x0c\x1f\x7f')).toBe('\\x00\\x08\\x0b\\x0c\\x1f\\x7f');
    expect(inert('\u0080\u009b2J\u0085')).toBe('\\x80\\x9b2J\\x85');
    expect(inert('admin\u202e\u2066')).toBe('admin\\u202e\\u2066');
    expect(inert('ünïcode ✓ 日本 \u00a0')).toBe('ünïcode ✓ 日本 \u00a0');
    expect(hasControls('plain\ttext\n')).toBe(false);
    expect(hasControls(HOSTILE)).toBe(true);
  });
  it('inertJson leaves JSON that parses to the same value, with DEL, C1 and bidi marks escaped', () => {
    const value = { out: `${HOSTILE}\u009b2J\u007f\u202e\u2066`, n: 1 };
    const json = inertJson(JSON.stringify(value));
    expect(hasControls(json)).toBe(false);
    expect(JSON.parse(json)).toEqual(value);
    expect(json).toContain('\\u009b2J\\u007f\\u202e\\u2066');
  });

  it('inertDeep copies objects and arrays, keys included, and keeps __proto__ a key', () => {
    const value = JSON.parse('{"a\\u001b":["\\u001b[2J",1,null,{"__proto__":"\\u0007"}]}') as unknown;
    const out = inertDeep(value) as Record<string, unknown[]>;
    expect(JSON.stringify(out)).toBe('{"a\\\\x1b":["\\\\x1b[2J",1,null,{"__proto__":"\\\\x07"}]}');
    expect(Object.getPrototypeOf(out['a\\x1b']![3])).toBe(Object.prototype);
  });
});

const hostileEvents: LoopEvent[] = [
  {
    type: 'init',
    run_id: 'r-1',
    repo: `/repo${HOSTILE}`,
    model: 'script:x',
    policy: 'policy',
    test: null,
    budget: { max_turns: 30, max_tokens: null, max_cost_usd: null, max_wall_s: null },
  },
  { type: 'turn', turn: 1 },
  {
    type: 'proposal',
    turn: 1,
    call_id: 'c-000000000001',
    tool: 'execute',
    args: { code: HOSTILE, [HOSTILE]: 1 },
    origin: 'model',
  },
  { type: 'noop', turn: 1, reason: `malformed: ${HOSTILE}` },
  {
    type: 'observation',
    turn: 1,
    call_id: 'c',
    kind: 'execute',
    target: '',
    trust: 'unverified',
    caveat: HOSTILE,
    summary: `exit 0, stdout ${HOSTILE}`,
  },
  { type: 'ask_user', turn: 1, question: `why?${HOSTILE}` },
  {
    type: 'result',
    run_id: 'r-1',
    outcome: 'stop',
    reason: HOSTILE,
    verified: false,
    exit_code: 4,
    turns: 1,
    tokens: 1,
    cost_usd: null,
    diff: `--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+${HOSTILE}\n`,
  },
];

function collect(format: 'text' | 'stream-json'): string {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const sink = headlessSink(format, out);
  for (const e of hostileEvents) sink(e);
  return text;
}

describe('the renderers', () => {
  it('text output carries no ESC; the hostile text is there, escaped', () => {
    const text = collect('text');
    expect(text).not.toContain(ESC);
    expect(text).not.toContain('\x07');
    expect(text).toContain('stdout \\x1b]0;pwned\\x07\\x1b[2J');
  });
  it('stream-json carries the exact string (JSON-escaped once, not twice)', () => {
    const lines = collect('stream-json').trim().split('\n');
    const events = lines.map((l) => JSON.parse(l) as LoopEvent);
    expect(events.find((e) => e.type === 'observation')).toMatchObject({ caveat: HOSTILE });
    expect(lines.join('\n')).not.toContain(ESC);
  });
  it('ledger runs: no ESC in the table, columns measured after escaping', () => {
    const entry: RunListEntry = {
      id: 'r-1',
      started_at: '2025-01-01T00:00:00Z',
      kind: 'fix',
      outcome: 'stop',
      turns: 1,
      tokens: 2,
      cost_usd: null,
      issue: `title${HOSTILE}`,
      repo: null,
      model: null,
    };
    const table = renderRunTable([entry], 400);
    expect(table).not.toContain(ESC);
    expect(table).toContain('title\\x1b]0;pwned');
  });
  it('the TUI frame shows the escaped text and no ESC from it', async () => {
    const store = new ViewStore(false);
    const ui = render(<App store={store} />);
    for (const e of hostileEvents) store.push(e);
    await new Promise((r) => setTimeout(r, 50));
    const frame = ui.lastFrame()!;
    // ink-testing-library renders without colour, so any ESC here would have come from the events.
    expect(frame).not.toContain(ESC);
    expect(frame).not.toContain('\x07');
    expect(frame).toContain('\\x1b]0;pwned');
    expect(frame).toContain('+\\x1b]0;pwned');
    // The view the components draw from holds only inert strings.
    expect(JSON.stringify(store.get())).not.toMatch(/\\u001b|\\u0007/);
    ui.unmount();
  });
});
