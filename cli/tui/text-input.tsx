// A text input for Ink: the draft (line-editor.ts) edited by the keys the terminal sends
// (input-keys.ts, read from the raw input: see raw-input.ts), shown with a block cursor.
import { Box, Text, useStdout } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { useRawInput } from './raw-input.js';
import { actionsOf, PASTE_END, PASTE_START } from './input-keys.js';
import { applyEdit, textOf, type Draft } from './line-editor.js';

export interface TextInputProps {
  initial: Draft;
  /** Every change of the draft (so that a redraw of the screen keeps it). */
  onChange?: (draft: Draft) => void;
  onSubmit: (text: string) => void;
  onDecline: () => void;
  prompt?: string;
  /** Enter on an empty draft submits '' (an optional answer); otherwise it does nothing. */
  allowEmpty?: boolean;
}

export function TextInput({
  initial,
  onChange,
  onSubmit,
  onDecline,
  prompt = '› ',
  allowEmpty = false,
}: TextInputProps) {
  const [draft, setDraft] = useState(initial);
  const current = useRef(draft);
  const pasting = useRef(false);
  const { stdout } = useStdout();

  useEffect(() => {
    // Bracketed paste: the terminal marks a paste, so its line breaks are text, not Enter.
    if (!stdout.isTTY) return;
    stdout.write('\u001b[?2004h');
    return () => void stdout.write('\u001b[?2004l');
  }, [stdout]);

  useRawInput((event) => {
    if (event === PASTE_START || event === PASTE_END) {
      pasting.current = event === PASTE_START;
      return;
    }
    let next = current.current;
    for (const action of actionsOf(event, pasting.current)) {
      if (action.kind === 'submit') {
        const text = textOf(next).trim();
        if (text || allowEmpty) onSubmit(text);
        continue;
      }
      if (action.kind === 'decline') return onDecline();
      // Ctrl-C is the app's, as everywhere else on the screen.
      if (action.kind === 'interrupt') return;
      next = applyEdit(next, action);
    }
    if (next !== current.current) {
      current.current = next;
      setDraft(next);
      onChange?.(next);
    }
  });

  return <DraftView draft={draft} prompt={prompt} />;
}

/** The draft's lines, the cursor drawn as an inverse cell (a space at the end of a line). */
function DraftView({ draft, prompt }: { draft: Draft; prompt: string }) {
  const lines: { text: string; start: number }[] = [];
  let start = 0;
  draft.chars.forEach((c, i) => {
    if (c === '\n') {
      lines.push({ text: draft.chars.slice(start, i).join(''), start });
      start = i + 1;
    }
  });
  lines.push({ text: draft.chars.slice(start).join(''), start });
  const pad = ' '.repeat(prompt.length);
  return (
    <Box flexDirection="column">
      {lines.map((line, n) => {
        const chars = Array.from(line.text);
        const at = draft.cursor - line.start;
        // The cursor at a line's end (on its line break) belongs to that line.
        const onThisLine = at >= 0 && at <= chars.length;
        return (
          <Text key={n} wrap="wrap">
            {n === 0 ? prompt : pad}
            {onThisLine ? (
              <>
                {chars.slice(0, at).join('')}
                <Text inverse>{chars[at] ?? ' '}</Text>
                {chars.slice(at + 1).join('')}
              </>
            ) : (
              line.text
            )}
          </Text>
        );
      })}
    </Box>
  );
}
