// The answer box: its pure editing (line-editor.ts), how terminal input reads as keys
// (input-keys.ts), and the Ink component fed raw terminal bytes with ink-testing-library.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { actionsOf, cleanText } from '../../cli/tui/input-keys.js';
import { applyEdit, draftOf, textOf, type Draft, type Edit } from '../../cli/tui/line-editor.js';
import { TextInput } from '../../cli/tui/text-input.js';
import { tick, frameWith } from '../helpers/ink-frames.js';

const ESC = '\u001b';
const edit = (d: Draft, ...edits: Edit['kind'][]) =>
  edits.reduce((x, kind) => applyEdit(x, { kind } as Edit), d);
const at = (text: string, cursor: number): Draft => ({ chars: Array.from(text), cursor });

describe('line editor', () => {
  it('deletes backwards and forwards any number of times, and never past the ends', () => {
    expect(textOf(edit(draftOf('abcdef'), 'backspace', 'backspace', 'backspace'))).toBe('abc');
    expect(textOf(edit(draftOf('ab'), 'backspace', 'backspace', 'backspace', 'backspace'))).toBe('');
    expect(edit(at('abcdef', 1), 'delete', 'delete')).toEqual(at('adef', 1));
    expect(edit(at('ab', 2), 'delete')).toEqual(at('ab', 2));
  });

  it('moves left, right, home and end, and inserts at the cursor', () => {
    const d = edit(draftOf('world'), 'home');
    expect(d.cursor).toBe(0);
    expect(textOf(applyEdit(d, { kind: 'insert', text: 'hello ' }))).toBe('hello world');
    expect(edit(at('abc', 1), 'left', 'left', 'left').cursor).toBe(0);
    expect(edit(at('abc', 1), 'right', 'right', 'right').cursor).toBe(3);
    expect(edit(at('ab\ncd', 4), 'home').cursor).toBe(3);
    expect(edit(at('ab\ncd', 0), 'end').cursor).toBe(2);
  });

  it('kills to the start of the line (Ctrl-U) and the word before the cursor (Ctrl-W)', () => {
    expect(edit(at('yes exactly n', 9), 'killToStart')).toEqual(at('ly n', 0));
    expect(textOf(edit(draftOf('yes, exactly n  '), 'killWord'))).toBe('yes, exactly ');
    expect(textOf(edit(draftOf('yes, exactly n'), 'killWord', 'killWord'))).toBe('yes, ');
    expect(textOf(edit(draftOf('one\ntwo'), 'killToStart', 'killToStart', 'killToStart'))).toBe('');
  });

  it('counts an emoji or an accented letter as one character', () => {
    expect(textOf(edit(draftOf('née 👍'), 'backspace'))).toBe('née ');
    expect(edit(draftOf('👍👍'), 'left').cursor).toBe(1);
  });

  it('moves up and down between the lines of a pasted paragraph', () => {
    expect(edit(at('abcd\nxy', 7), 'up').cursor).toBe(2);
    expect(edit(at('ab\nwxyz', 1), 'down').cursor).toBe(4);
  });
});

describe('terminal input as keys', () => {
  it('reads a run of Backspaces as that many Backspaces, and Delete apart from Backspace', () => {
    expect(actionsOf('\u007f\u007f\u007f', false)).toEqual([
      { kind: 'backspace' },
      { kind: 'backspace' },
      { kind: 'backspace' },
    ]);
    expect(actionsOf(`${ESC}[3~`, false)).toEqual([{ kind: 'delete' }]);
  });

  it('reads Enter alone as the answer, and line breaks inside a paste as text', () => {
    expect(actionsOf('\r', false)).toEqual([{ kind: 'submit' }]);
    expect(actionsOf('one\rtwo', false)).toEqual([{ kind: 'insert', text: 'one\ntwo' }]);
    expect(actionsOf('one\r\ntwo\r', true)).toEqual([{ kind: 'insert', text: 'one\ntwo\n' }]);
    expect(actionsOf(`${ESC}[31m`, true)).toEqual([]);
  });

  it('reads Ctrl keys as edits and drops every other control character', () => {
    expect(actionsOf('\u0015', false)).toEqual([{ kind: 'killToStart' }]);
    expect(actionsOf('\u0017', false)).toEqual([{ kind: 'killWord' }]);
    expect(actionsOf('a\u0007b\u009bc\u202ed', false)).toEqual([{ kind: 'insert', text: 'abcd' }]);
    expect(actionsOf(`${ESC}[1;5P`, false)).toEqual([]);
    expect(cleanText('a\tb\u0000c\r\nd\u001b[2Je')).toBe('a bc\nd[2Je');
  });
});

function mount() {
  const answers: string[] = [];
  let declined = 0;
  let last: Draft = draftOf('');
  const ui = render(
    <TextInput
      initial={draftOf('')}
      onChange={(d) => (last = d)}
      onSubmit={(t) => answers.push(t)}
      onDecline={() => declined++}
    />,
  );
  return { ui, answers, declined: () => declined, draft: () => last };
}

describe('TextInput', () => {
  it('edits with Backspace, Delete, arrows, Home, End, Ctrl-U and Ctrl-W, then answers with Enter', async () => {
    const { ui, answers, draft } = mount();
    await tick();
    ui.stdin.write('yes, exactlyyy');
    await frameWith(ui, 'exactlyyy');
    ui.stdin.write('\u007f\u007f');
    for (let i = 0; i < 100 && textOf(draft()) !== 'yes, exactly'; i++) await tick();
    expect(textOf(draft())).toBe('yes, exactly');
    ui.stdin.write(`${ESC}[D`); // the cursor onto the final y
    await tick();
    ui.stdin.write(`${ESC}[3~`); // Delete removes it
    await tick();
    ui.stdin.write('y n');
    await tick();
    expect(textOf(draft())).toBe('yes, exactly n');
    ui.stdin.write(`${ESC}[H`);
    await tick();
    ui.stdin.write('so ');
    await tick();
    ui.stdin.write(`${ESC}[F`);
    await tick();
    ui.stdin.write(' words');
    await frameWith(ui, '› so yes, exactly n words');
    ui.stdin.write('\u0017'); // Ctrl-W: "words"
    await tick();
    expect(textOf(draft())).toBe('so yes, exactly n ');
    ui.stdin.write('\u0015'); // Ctrl-U: all of it
    await tick();
    expect(textOf(draft())).toBe('');
    ui.stdin.write('exactly n');
    await frameWith(ui, '› exactly n');
    ui.stdin.write('\r');
    await tick();
    expect(answers).toEqual(['exactly n']);
    ui.unmount();
  });

  it('takes a bracketed paste of several lines as text, control characters dropped', async () => {
    const { ui, answers, draft } = mount();
    await tick();
    ui.stdin.write(`${ESC}[200~first line\rsecond\u0007 line${ESC}[31m\r${ESC}[201~`);
    await frameWith(ui, 'second line');
    expect(textOf(draft())).toBe('first line\nsecond line\n');
    const frame = ui.lastFrame()!;
    expect(frame).toContain('› first line');
    expect(frame).toContain('  second line');
    expect(answers).toEqual([]);
    ui.stdin.write('\r');
    await tick();
    expect(answers).toEqual(['first line\nsecond line']);
    ui.unmount();
  });

  it('declines with Esc', async () => {
    const { ui, declined } = mount();
    await tick();
    ui.stdin.write('abc');
    await tick();
    ui.stdin.write(ESC);
    for (let i = 0; i < 100 && declined() === 0; i++) await tick();
    expect(declined()).toBe(1);
    ui.unmount();
  });
});
