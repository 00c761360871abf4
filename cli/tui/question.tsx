// The inline answer to ask_user: type, Enter answers (the run goes on), Esc declines (the run
// stops with outcome ask_user). A small input of our own: no dependency for one line of text.
import { Box, Text, useInput } from 'ink';
import { useState } from 'react';

export function QuestionInput({
  question,
  onAnswer,
}: {
  question: string;
  onAnswer: (answer: string | null) => void;
}) {
  const [value, setValue] = useState('');
  useInput((input, key) => {
    if (key.return) {
      if (value.trim()) onAnswer(value.trim());
      return;
    }
    if (key.escape) return onAnswer(null);
    if (key.backspace || key.delete) return setValue((v) => v.slice(0, -1));
    if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.tab)
      return;
    setValue((v) => v + input);
  });
  return (
    <Box flexDirection="column" borderStyle="single" paddingX={1}>
      <Text wrap="wrap">{question}</Text>
      <Text>
        › {value}
        <Text inverse> </Text>
      </Text>
      <Text dimColor wrap="truncate-end">
        Enter answers · Esc declines (the run stops)
      </Text>
    </Box>
  );
}
