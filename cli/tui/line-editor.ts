// The answer box's text and cursor, and every edit on them, as pure functions: the component only
// maps keys to these. Positions count code points, so an emoji or an accented letter is one
// step of the cursor and one Backspace. The text may hold line breaks (a pasted paragraph);
// Home/End, Ctrl-U and Ctrl-K work on the cursor's line, as in a shell.

export interface Draft {
  /** Code points, so that cursor arithmetic never splits a surrogate pair. */
  chars: string[];
  /** 0..chars.length: the cursor sits before chars[cursor]. */
  cursor: number;
}

export type Edit =
  | { kind: 'insert'; text: string }
  | {
      kind:
        | 'backspace'
        | 'delete'
        | 'left'
        | 'right'
        | 'up'
        | 'down'
        | 'home'
        | 'end'
        | 'killToStart'
        | 'killToEnd'
        | 'killWord';
    };

export const emptyDraft: Draft = { chars: [], cursor: 0 };

export function draftOf(text: string): Draft {
  const chars = Array.from(text);
  return { chars, cursor: chars.length };
}

export function textOf(draft: Draft): string {
  return draft.chars.join('');
}

export function applyEdit(d: Draft, e: Edit): Draft {
  const { chars, cursor } = d;
  const lineStart = chars.lastIndexOf('\n', cursor - 1) + 1;
  const nextBreak = chars.indexOf('\n', cursor);
  const lineEnd = nextBreak === -1 ? chars.length : nextBreak;
  const cut = (from: number, to: number): Draft => ({
    chars: [...chars.slice(0, from), ...chars.slice(to)],
    cursor: from,
  });
  switch (e.kind) {
    case 'insert': {
      const add = Array.from(e.text);
      return {
        chars: [...chars.slice(0, cursor), ...add, ...chars.slice(cursor)],
        cursor: cursor + add.length,
      };
    }
    case 'backspace':
      return cursor === 0 ? d : cut(cursor - 1, cursor);
    case 'delete':
      return cursor === chars.length ? d : { ...cut(cursor, cursor + 1), cursor };
    case 'left':
      return { chars, cursor: Math.max(0, cursor - 1) };
    case 'right':
      return { chars, cursor: Math.min(chars.length, cursor + 1) };
    case 'home':
      return { chars, cursor: lineStart };
    case 'end':
      return { chars, cursor: lineEnd };
    case 'up': {
      if (lineStart === 0) return { chars, cursor: 0 };
      const prevStart = chars.lastIndexOf('\n', lineStart - 2) + 1;
      return { chars, cursor: Math.min(prevStart + (cursor - lineStart), lineStart - 1) };
    }
    case 'down': {
      if (lineEnd === chars.length) return { chars, cursor: chars.length };
      const after = chars.indexOf('\n', lineEnd + 1);
      const nextEnd = after === -1 ? chars.length : after;
      return { chars, cursor: Math.min(lineEnd + 1 + (cursor - lineStart), nextEnd) };
    }
    case 'killToStart':
      // At the start of a line, Ctrl-U joins it to the previous one, so repeated presses clear all.
      return cursor === lineStart ? (cursor === 0 ? d : cut(cursor - 1, cursor)) : cut(lineStart, cursor);
    case 'killToEnd':
      return cursor === lineEnd
        ? { ...cut(cursor, Math.min(chars.length, cursor + 1)), cursor }
        : { ...cut(cursor, lineEnd), cursor };
    case 'killWord': {
      // readline's unix-word-rubout: the whitespace before the cursor, then the word before that.
      let from = cursor;
      while (from > 0 && /\s/.test(chars[from - 1]!)) from--;
      while (from > 0 && !/\s/.test(chars[from - 1]!)) from--;
      return cut(from, cursor);
    }
  }
}
