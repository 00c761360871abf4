// Waiting for an Ink screen in ink-testing-library: Ink renders asynchronously, and a loaded machine
// is slower, so a test waits for the frame it expects instead of sleeping a fixed time.
import type { LoopEvent } from '../../policy/events.js';

/** One short wait: long enough for Ink to render a pushed event. */
export const tick = () => new Promise((r) => setTimeout(r, 30));

/** Waits until the screen shows `text`; fails with the last frame after 6 s. */
export async function frameWith(ui: { lastFrame(): string | undefined }, text: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const frame = ui.lastFrame() ?? '';
    if (frame.includes(text)) return frame;
    await tick();
  }
  throw new Error(`the screen never showed ${JSON.stringify(text)}:\n${ui.lastFrame()}`);
}

/** The `init` event of a scripted demo run, with `budget` fields replaced as given. */
export function demoInit(budget: Partial<Extract<LoopEvent, { type: 'init' }>['budget']> = {}): LoopEvent {
  return {
    type: 'init',
    run_id: 'r-1',
    repo: '/repo',
    model: 'script:demo.jsonl',
    policy: 'policy',
    test: 'tests/test_words.py',
    budget: { max_turns: 30, max_tokens: null, max_cost_usd: null, max_wall_s: null, ...budget },
  };
}
