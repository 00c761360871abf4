// The one question about a repository's .piper/config.json, asked before a run on a terminal: the
// keys it sets that need trust, with their values, and y/N. Anything but y (or Y) is no, Enter
// included: an untrusted file keeps only what narrows.
import { Box, render, Text } from 'ink';
import { shownValue, type TrustQuestion } from '../repo-config-trust/trust-question.js';
import { EXIT } from '../../core/exit-codes.js';
import { inert } from '../../runtime/text/inert.js';
import { actionsOf } from './input-keys.js';
import { useRawInput } from './raw-input.js';
import { redrawOnResize } from './redraw-on-resize.js';

export function TrustPrompt({
  question,
  onAnswer,
}: {
  question: TrustQuestion;
  onAnswer: (trusted: boolean | 'interrupt') => void;
}) {
  // The raw input, as everywhere in the TUI: Ink's useInput throws on a pasted escape sequence.
  useRawInput((event) => {
    if (event === 'y' || event === 'Y') return onAnswer(true);
    if (event === 'n' || event === 'N') return onAnswer(false);
    for (const action of actionsOf(event, false)) {
      // Raw mode turns Ctrl-C into input: it stops piper-agent here, as it would anywhere else.
      if (action.kind === 'interrupt') return onAnswer('interrupt');
      if (action.kind === 'submit' || action.kind === 'decline') return onAnswer(false);
    }
  });
  return (
    <Box flexDirection="column" borderStyle="single" paddingX={1}>
      <Text wrap="wrap">
        {inert(question.file)} sets {question.keys.length === 1 ? 'a key' : 'keys'} that a repository may only
        set with your trust:
      </Text>
      {question.keys.map((k) => (
        <Box key={k.key} flexDirection="column" marginLeft={2}>
          <Text>
            <Text bold>{k.key}</Text> = {shownValue(k)}
          </Text>
          <Text dimColor>{k.reason}</Text>
        </Box>
      ))}
      <Text>Trust this file (remembered until it changes)? [y/N]</Text>
    </Box>
  );
}

/** Shows the prompt (drawn afresh on a resize), waits for the answer, and clears it from the screen. */
export async function askRepoTrust(question: TrustQuestion): Promise<boolean> {
  let answer!: (trusted: boolean | 'interrupt') => void;
  const answered = new Promise<boolean | 'interrupt'>((resolve) => (answer = resolve));
  const screen = redrawOnResize(
    () =>
      render(<TrustPrompt question={question} onAnswer={(t) => answer(t)} />, {
        stdout: process.stdout,
        exitOnCtrlC: false,
        patchConsole: false,
      }),
    process.stdout,
  );
  const result = await answered;
  screen.stop();
  const app = screen.app;
  app.clear();
  app.unmount();
  await app.waitUntilExit().catch(() => undefined);
  // Nothing has started yet: ending here loses nothing.
  if (result === 'interrupt') process.exit(EXIT.interrupted);
  return result === true;
}
