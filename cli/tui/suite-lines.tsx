// The regression gate's part of the final screen: the suite's one line, and each regression with
// the first lines of its failure (policy/regression/suite-report.ts words them for every output).
import { Box, Text } from 'ink';
import { regressionLines, suiteLine, type SuiteReport } from '../../policy/regression/suite-report.js';
import { color } from './color.js';

export function SuiteLines({ suite }: { suite: SuiteReport | undefined }) {
  if (!suite) return null;
  const bad = suite.status === 'regressed';
  return (
    <Box flexDirection="column">
      <Text wrap="wrap" color={color(bad ? 'red' : suite.status === 'clean' ? 'green' : 'yellow')}>
        {suiteLine(suite)}
      </Text>
      {regressionLines(suite).map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
    </Box>
  );
}
