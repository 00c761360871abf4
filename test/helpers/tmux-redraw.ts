// What a resize must leave on a terminal: the screen drawn for the new width once, and nothing of
// the frames drawn for the old one, on the screen or in the scrollback.
import { expect } from 'vitest';
import type { TmuxSession } from './tmux.js';

/** How many times `what` occurs in `text`. */
const occurrences = (text: string, what: string | RegExp): number =>
  typeof what === 'string'
    ? text.split(what).length - 1
    : (text.match(new RegExp(what.source, 'g')) ?? []).length;

/**
 * After a resize to `columns`, the first complete screen for that width — it shows `drawn` (a line
 * only a frame for that width has) and each of `once` — watched as closely as tmux allows, and the
 * pane with its scrollback hold each of `once` exactly once and no line twice: the frame drawn for
 * the new width keeps nothing of the frames drawn for the old one. (A frame caught half-written,
 * which a loaded machine shows, is not yet that screen. Two lines cut short with … may look alike:
 * no other two lines of the screens these tests draw do, so any other line seen twice is a
 * left-over.)
 */
export async function expectRedrawnOnce(
  t: TmuxSession,
  columns: number,
  drawn: RegExp,
  once: Array<string | RegExp>,
): Promise<void> {
  const screen = await firstComplete(t, drawn, once);
  for (const s of [screen, t.screen({ history: true })]) {
    const lines = s.split('\n').filter((line) => line.trim() !== '');
    const whole = lines.filter((line) => !line.endsWith('…'));
    expect(
      whole.filter((line, i) => whole.indexOf(line) !== i),
      s,
    ).toEqual([]);
    for (const what of once) expect(occurrences(s, what), `${what} in\n${s}`).toBe(1);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns);
  }
}

async function firstComplete(t: TmuxSession, drawn: RegExp, once: Array<string | RegExp>): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = t.screen();
    if (drawn.test(s) && once.every((what) => occurrences(s, what) > 0)) return s;
    if (Date.now() > deadline) throw new Error(`no complete screen matching ${drawn} within 30 s:\n${s}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
