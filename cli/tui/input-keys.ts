// What the terminal sent, as the answer box's actions. Ink's input parser hands over either one
// escape sequence or a run of plain characters; a run is read character by character, because
// several Backspaces (or a paste) arrive as one run and Ink would report them as text. Inside a
// bracketed paste (the box turns the mode on) everything is text: line breaks stay line breaks and
// Enter does not answer. Control characters are never text: they are keys or nothing.
import type { Edit } from './line-editor.js';

export type Action = Edit | { kind: 'submit' } | { kind: 'decline' } | { kind: 'interrupt' };

export const PASTE_START = '\u001b[200~';
export const PASTE_END = '\u001b[201~';

const SEQUENCES: Record<string, Action['kind']> = {
  '\u001b': 'decline',
  '\u001b[D': 'left',
  '\u001bOD': 'left',
  '\u001b[C': 'right',
  '\u001bOC': 'right',
  '\u001b[A': 'up',
  '\u001bOA': 'up',
  '\u001b[B': 'down',
  '\u001bOB': 'down',
  '\u001b[H': 'home',
  '\u001bOH': 'home',
  '\u001b[1~': 'home',
  '\u001b[7~': 'home',
  '\u001b[F': 'end',
  '\u001bOF': 'end',
  '\u001b[4~': 'end',
  '\u001b[8~': 'end',
  '\u001b[3~': 'delete',
  '\u001b\u007f': 'killWord',
  '\u001b\b': 'killWord',
};

const CONTROLS: Record<string, Action['kind']> = {
  '\u007f': 'backspace',
  '\b': 'backspace',
  '\u0001': 'home',
  '\u0005': 'end',
  '\u0002': 'left',
  '\u0006': 'right',
  '\u0004': 'delete',
  '\u0015': 'killToStart',
  '\u000b': 'killToEnd',
  '\u0017': 'killWord',
  '\u0003': 'interrupt',
};

// eslint-disable-next-line no-control-regex -- dropping control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Text as it may be stored: line breaks normalised to \n, tabs as spaces, every other control gone. */
export function cleanText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ').replace(UNSAFE, '');
}

/** One event from Ink's input parser, read as actions; `pasting` is inside a bracketed paste. */
export function actionsOf(event: string, pasting: boolean): Action[] {
  if (event.startsWith('\u001b')) {
    if (pasting) return []; // an escape sequence inside pasted text is neither text nor a key
    const kind = SEQUENCES[event];
    return kind ? [{ kind } as Action] : [];
  }
  if (pasting) {
    const text = cleanText(event);
    return text ? [{ kind: 'insert', text }] : [];
  }
  // Enter answers when it is the whole event or ends it (typed ahead); a line break inside a run
  // of characters is a pasted one (a terminal without bracketed paste); Ctrl-J is a line break.
  if (event === '\r') return [{ kind: 'submit' }];
  const actions: Action[] = [];
  let text = '';
  const flush = () => {
    if (text) actions.push({ kind: 'insert', text });
    text = '';
  };
  const chars = Array.from(event);
  chars.forEach((c, i) => {
    if (c === '\r' && i === chars.length - 1) {
      flush();
      actions.push({ kind: 'submit' });
    } else if (c === '\r' || c === '\n') {
      text += c === '\r' && chars[i + 1] === '\n' ? '' : '\n';
    } else if (c === '\t') {
      text += ' ';
    } else if (CONTROLS[c]) {
      flush();
      actions.push({ kind: CONTROLS[c] } as Action);
    } else {
      text += cleanText(c);
    }
  });
  flush();
  return actions;
}
