// The inline answer to ask_user: a text input (Enter answers and the run goes on; Esc declines and
// the run stops with outcome ask_user, and the final screen says how to answer later).
import { Box, Text } from 'ink';
import { TextInput } from './text-input.js';
import type { Draft } from './line-editor.js';

export function QuestionInput({
  question,
  draft,
  onDraft,
  onAnswer,
}: {
  question: string;
  draft: Draft;
  onDraft: (draft: Draft) => void;
  onAnswer: (answer: string | null) => void;
}) {
  return (
    <Box flexDirection="column" borderStyle="single" paddingX={1}>
      <Text wrap="wrap">{question}</Text>
      <TextInput
        initial={draft}
        onChange={onDraft}
        onSubmit={(text) => onAnswer(text)}
        onDecline={() => onAnswer(null)}
      />
      <Text dimColor wrap="wrap">
        Enter answers · Esc declines (the run stops)
      </Text>
    </Box>
  );
}
