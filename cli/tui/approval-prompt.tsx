// The authorization stage on a terminal (docs/approval.md): one proposed edit's file, entity and
// exact unified diff, and the engineer's decision. Enter applies it; `a` applies it and every later
// edit of the same file in this run; `n` or Esc refuses it, then asks for an optional one-line
// reason (Enter sends it, or refuses without one on an empty line; Esc sends none). Every string shown was made inert by the store.
import { Box, Text } from 'ink';
import { useState } from 'react';
import type { UserVerdict } from '../../policy/approval.js';
import type { EditApprovalRequest } from '../../primitives/edit-approval.js';
import { actionsOf } from './input-keys.js';
import { emptyDraft, type Draft } from './line-editor.js';
import { useRawInput } from './raw-input.js';
import { TextInput } from './text-input.js';

/** The longest diff shown in full; a longer one shows its head and says how much is left out. */
const DIFF_LINES = 40;

export function ApprovalPrompt({
  request,
  onDecide,
  refusal,
  onRefusal,
}: {
  request: EditApprovalRequest;
  onDecide: (verdict: UserVerdict) => void;
  /** The reason typed so far once refusing (null: not refusing), as a redraw of the screen found it. */
  refusal: Draft | null;
  onRefusal: (reason: Draft) => void;
}) {
  const [refusing, setRefusing] = useState(refusal !== null);
  const refuse = () => {
    setRefusing(true);
    onRefusal(emptyDraft);
  };
  // The decision keys; once refusing, the reason's text input has the keyboard.
  useRawInput((event) => {
    if (event === 'a') return onDecide({ verdict: 'file' });
    if (event === 'n') return refuse();
    for (const action of actionsOf(event, false)) {
      if (action.kind === 'submit') return onDecide({ verdict: 'once' });
      if (action.kind === 'decline') return refuse();
    }
  }, !refusing);
  return (
    <Box flexDirection="column" borderStyle="single" paddingX={1}>
      <Text bold wrap="wrap">
        Apply this edit to {request.path}? <Text dimColor>({request.selector})</Text>
      </Text>
      <DiffLines diff={request.diff} />
      {!refusing ? (
        <Text dimColor wrap="wrap">
          Enter applies it · a applies it and every later edit of {request.path} in this run · n or Esc
          refuses it
        </Text>
      ) : (
        <RefusalReason refusal={refusal} onRefusal={onRefusal} onDecide={onDecide} />
      )}
    </Box>
  );
}

/** The diff's lines, coloured by kind, at most DIFF_LINES of them and a count of the rest. */
function DiffLines({ diff }: { diff: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, DIFF_LINES);
  return (
    <>
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
    </>
  );
}

/** Once refusing: the optional one-line reason's input and what its keys do. */
function RefusalReason({
  refusal,
  onRefusal,
  onDecide,
}: {
  refusal: Draft | null;
  onRefusal: (reason: Draft) => void;
  onDecide: (verdict: UserVerdict) => void;
}) {
  return (
    <>
      <Text>Why not? (optional, one line; the model reads it)</Text>
      <TextInput
        allowEmpty
        initial={refusal ?? emptyDraft}
        onChange={onRefusal}
        onSubmit={(reason) => onDecide({ verdict: 'deny', reason })}
        onDecline={() => onDecide({ verdict: 'deny', reason: '' })}
      />
      <Text dimColor wrap="truncate-end">
        Enter sends the reason to the model (nothing typed: refuses without one) · Esc refuses without one
      </Text>
    </>
  );
}
