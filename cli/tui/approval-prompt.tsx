// The authorization stage on a terminal (docs/approval.md): one proposed edit's file, entity and
// exact unified diff, and the engineer's decision. Enter applies it; `a` applies it and every later
// edit of the same file in this run; `n` or Esc refuses it, then asks for an optional one-line
// reason (Enter sends it, Esc sends none). Every string shown was made inert by the store.
import { Box, Text, useInput } from 'ink';
import { useState } from 'react';
import type { UserVerdict } from '../../policy/approval.js';
import type { EditApprovalRequest } from '../../primitives/edit-approval.js';

/** The longest diff shown in full; a longer one shows its head and says how much is left out. */
const DIFF_LINES = 40;

export function ApprovalPrompt({
  request,
  onDecide,
}: {
  request: EditApprovalRequest;
  onDecide: (verdict: UserVerdict) => void;
}) {
  const [reason, setReason] = useState<string | null>(null);
  useInput((input, key) => {
    if (reason === null) {
      if (key.return) return onDecide({ verdict: 'once' });
      if (input === 'a') return onDecide({ verdict: 'file' });
      if (input === 'n' || key.escape) return setReason('');
      return;
    }
    if (key.return) return onDecide({ verdict: 'deny', reason });
    if (key.escape) return onDecide({ verdict: 'deny', reason: '' });
    if (key.backspace || key.delete) return setReason((r) => (r ?? '').slice(0, -1));
    if (key.ctrl && input === 'u') return setReason('');
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow)
      return;
    // One line: a pasted newline or control character never reaches the reason.
    // eslint-disable-next-line no-control-regex
    setReason((r) => (r ?? '') + input.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' '));
  });
  const lines = request.diff.replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, DIFF_LINES);
  return (
    <Box flexDirection="column" borderStyle="single" paddingX={1}>
      <Text bold wrap="wrap">
        Apply this edit to {request.path}? <Text dimColor>({request.selector})</Text>
      </Text>
      {shown.map((line, i) => (
        <Text
          key={i}
          wrap="truncate-end"
          color={line.startsWith('+') ? 'green' : line.startsWith('-') ? 'red' : undefined}
          dimColor={line.startsWith('@@')}
        >
          {line}
        </Text>
      ))}
      {lines.length > DIFF_LINES ? (
        <Text dimColor>… {lines.length - DIFF_LINES} more diff line(s)</Text>
      ) : null}
      {reason === null ? (
        <Text dimColor wrap="wrap">
          Enter applies it · a applies it and every later edit of {request.path} in this run · n or Esc
          refuses it
        </Text>
      ) : (
        <>
          <Text>
            Why not? (optional) › {reason}
            <Text inverse> </Text>
          </Text>
          <Text dimColor wrap="truncate-end">
            Enter sends the reason to the model · Esc refuses without one
          </Text>
        </>
      )}
    </Box>
  );
}
