// A redraw of the screen, as a resize does it (the app unmounted and mounted again on the same
// store: see cli/tui/screen.tsx), keeps what the engineer is typing: the answer to a question, and
// the reason for refusing an edit. After the redraw Enter still sends that reason; it never applies
// the edit being refused.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { App } from '../../cli/tui/app.js';
import { ViewStore } from '../../cli/tui/store.js';
import { tick, frameWith, demoInit } from '../helpers/ink-frames.js';

const init = demoInit();

describe('a redraw of the TUI', () => {
  it('keeps the answer being typed', async () => {
    const store = new ViewStore(true);
    const before = render(<App store={store} />);
    store.push(init);
    store.push({ type: 'turn', turn: 1 });
    store.push({ type: 'ask_user', turn: 1, question: 'Exactly n words?' });
    const answer = store.ask('Exactly n words?');
    await frameWith(before, 'Enter answers');
    await tick();
    before.stdin.write('yes, n');
    await frameWith(before, '› yes, n');
    before.unmount();

    const after = render(<App store={store} />);
    await frameWith(after, '› yes, n');
    await tick();
    after.stdin.write(' exactly\r');
    expect(await answer).toBe('yes, n exactly');
    after.unmount();
  });

  it('keeps a refusal and its reason; Enter then sends the reason, it does not apply the edit', async () => {
    const store = new ViewStore(true);
    const before = render(<App store={store} />);
    store.push(init);
    store.push({ type: 'turn', turn: 1 });
    const verdict = store.askApproval({
      callId: 'c-1',
      path: 'src/words.py',
      selector: 'words.top_words',
      diff: '--- a/src/words.py\n+++ b/src/words.py\n@@ -1 +1 @@\n-a\n+b\n',
    });
    await frameWith(before, 'Enter applies it');
    await tick();
    before.stdin.write('n');
    await frameWith(before, 'Why not?');
    await tick();
    before.stdin.write('breaks the API');
    await frameWith(before, '› breaks the API');
    before.unmount();

    const after = render(<App store={store} />);
    const redrawn = await frameWith(after, '› breaks the API');
    expect(redrawn).toContain('Why not?');
    expect(redrawn).not.toContain('Enter applies it');
    await tick();
    after.stdin.write('\r');
    expect(await verdict).toEqual({ verdict: 'deny', reason: 'breaks the API' });
    after.unmount();
  });

  it('starts the next edit undecided', async () => {
    const store = new ViewStore(true);
    const ui = render(<App store={store} />);
    store.push(init);
    const edit = { path: 'src/words.py', selector: 'words.top_words', diff: '-a\n+b\n' };
    const first = store.askApproval({ callId: 'c-1', ...edit });
    await frameWith(ui, 'Enter applies it');
    await tick();
    ui.stdin.write('n');
    await frameWith(ui, 'Why not?');
    await tick();
    ui.stdin.write('\u001b');
    expect(await first).toEqual({ verdict: 'deny', reason: '' });
    ui.unmount();

    const second = store.askApproval({ callId: 'c-2', ...edit });
    const redrawn = render(<App store={store} />);
    const frame = await frameWith(redrawn, 'Enter applies it');
    expect(frame).not.toContain('Why not?');
    await tick();
    redrawn.stdin.write('\r');
    expect(await second).toEqual({ verdict: 'once' });
    redrawn.unmount();
  });
});
