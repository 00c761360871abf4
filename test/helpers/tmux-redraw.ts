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
 * After a resize to `columns`, the first screen that shows `drawn` (a line only a frame for that
 * width has), watched as closely as tmux allows, and the pane with its scrollback hold each of
 * `once` exactly once and no line twice: no frame, not even for a moment, keeps anything of the
 * frames drawn for the old width. (Two lines cut short with … may look alike: no other two lines of
 * the screens these tests draw do, so any other line seen twice is a left-over.)
 */
export async function expectRedrawnOnce(
  t: TmuxSession,
  columns: number,
  drawn: RegExp,
  once: Array<string | RegExp>,
): Promise<void> {
  const screen = await t.waitFor(drawn, undefined, 0);
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
