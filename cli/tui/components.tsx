// The TUI's pieces. Every line is cut to the terminal's width (truncate), so a 60-column tmux pane
// shows a clean screen; colour is dropped under NO_COLOR.
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import type { RunResult } from '../../policy/events.js';
import { environmentText, shortArgs } from '../render/headless.js';
import type { Line, RunView, TurnView } from './state.js';

const color = (c: string): string | undefined => (process.env.NO_COLOR ? undefined : c);

export function Header({ view }: { view: RunView }) {
  const i = view.init;
  if (!i)
    return (
      <Text dimColor wrap="truncate-end">
        {view.setup ? `setting up: ${view.setup}` : 'starting…'}
      </Text>
    );
  const budget = [
    `${i.budget.max_turns} turns`,
    i.budget.max_cost_usd !== null ? `$${i.budget.max_cost_usd}` : null,
    i.budget.max_tokens !== null ? `${i.budget.max_tokens} tokens` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text wrap="truncate-end">
        <Text bold>piper-agent</Text> {i.repo}
      </Text>
      <Text wrap="truncate-end" dimColor>
        model {i.model} · policy {i.policy} · budget {budget}
        {i.test ? ` · repro ${i.test}` : ''}
      </Text>
      {view.environment ? (
        <Text wrap="truncate-end" dimColor>
          environment: {environmentText(view.environment)}
        </Text>
      ) : null}
    </Box>
  );
}

export function LineView({ line }: { line: Line }) {
  switch (line.kind) {
    case 'toolset':
      return (
        <Text wrap="truncate-end" dimColor>
          {' '}
          tools: {line.tools.join(', ')}
        </Text>
      );
    case 'call':
      return (
        <Text wrap="truncate-end">
          {'  '}
          <Text color={color(line.origin === 'trigger' ? 'magenta' : 'cyan')}>
            {line.origin === 'trigger' ? `⚙ ${line.trigger}` : '▸ model'}
          </Text>{' '}
          {line.tool} <Text dimColor>{shortArgs(line.args, 70)}</Text>
        </Text>
      );
    case 'rejection':
      return (
        <Text wrap="truncate-end" color={color('red')}>
          {' '}
          ✗ rejected: {line.reason}
          {line.reselect ? ' (re-selecting)' : ''}
        </Text>
      );
    case 'noop':
      return (
        <Text wrap="truncate-end" color={color('yellow')}>
          {' '}
          · no-op turn: {line.reason}
        </Text>
      );
    case 'sandbox':
      return (
        <Text wrap="truncate-end" dimColor>
          {'    '}sandbox exit {line.exitCode}
          {line.timedOut ? ' (timed out)' : ''} in {(line.ms / 1000).toFixed(1)} s
        </Text>
      );
    case 'observation': {
      const mark = line.trust === null ? '' : line.trust === 'trusted' ? '✓ ' : '⚠ ';
      return (
        <Text wrap="truncate-end">
          {'    '}
          <Text color={color(line.trust === 'unverified' ? 'yellow' : 'green')}>{mark}</Text>
          {line.what}: {line.summary}
          {line.trust === 'unverified' ? (
            <Text color={color('yellow')}> [unverified: {line.caveat}]</Text>
          ) : null}
        </Text>
      );
    }
    case 'question':
      return (
        <Text wrap="wrap" color={color('yellow')}>
          {' '}
          ? {line.text}
        </Text>
      );
    case 'answer':
      return <Text wrap="wrap"> ↳ {line.text}</Text>;
  }
}

export function TurnBlock({ turn }: { turn: TurnView }) {
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {turn.turn === 0 ? 'start' : `turn ${turn.turn}`}
      </Text>
      {turn.lines.map((line, i) => (
        <LineView key={i} line={line} />
      ))}
    </Box>
  );
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function Running({ tool, since }: { tool: string; since: number }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  const frame = FRAMES[Math.floor(now / 100) % FRAMES.length];
  return (
    <Text wrap="truncate-end" color={color('blue')}>
      {'    '}
      {frame} {tool === 'run_test' || tool === 'execute' ? 'sandbox: ' : ''}
      {tool} {((now - since) / 1000).toFixed(1)} s
    </Text>
  );
}

export function Footer({ view }: { view: RunView }) {
  const cost = view.costUsd === null ? 'cost —' : `$${view.costUsd.toFixed(4)}`;
  return (
    <Text wrap="truncate-end" dimColor>
      turn {view.turns}/{view.init?.budget.max_turns ?? '?'} · {view.tokens} tokens · {cost} · Ctrl-C stops
    </Text>
  );
}

export function Final({ result }: { result: RunResult }) {
  const good = result.outcome === 'resolved';
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={color(good ? 'green' : result.outcome === 'ask_user' ? 'yellow' : 'red')} wrap="wrap">
        {result.outcome}: {result.reason}
      </Text>
      <Text wrap="wrap">
        repro test passed in the sandbox after the last edit:{' '}
        <Text bold>{result.verified ? 'yes' : 'no'}</Text>
      </Text>
      {result.diff ? (
        <Box flexDirection="column" marginY={1}>
          {result.diff
            .trimEnd()
            .split('\n')
            .map((l, i) => (
              <Text
                key={i}
                wrap="truncate-end"
                color={color(
                  l.startsWith('+') && !l.startsWith('+++')
                    ? 'green'
                    : l.startsWith('-') && !l.startsWith('---')
                      ? 'red'
                      : 'white',
                )}
              >
                {l || ' '}
              </Text>
            ))}
        </Box>
      ) : (
        <Text dimColor>no edits</Text>
      )}
      <Text wrap="wrap">
        run {result.run_id} · turns {result.turns} · tokens {result.tokens}
        {result.diff ? ` · undo: piper-agent undo ${result.run_id}` : ''}
      </Text>
    </Box>
  );
}
