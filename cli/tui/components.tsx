// The TUI's pieces. A transcript line is cut to the terminal's width (its whole record is in the
// ledger); what the engineer must be able to copy or read in full — the header's facts, the
// question, failed tests, the diff, the undo and resume commands — wraps instead. Colour is
// dropped under NO_COLOR.
import { verdictLines } from '../../policy/verdict-lines.js';
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import type { RunResult } from '../../policy/events.js';
import { isSandboxed } from '../../primitives/tools/all-tools.js';
import type { TestFailure } from '../../policy/test-failures.js';
import { environmentText, indexText, shortArgs } from '../render/headless.js';
import type { SetupProgress } from './setup-log.js';
import type { Line, RunView, TurnView } from './state.js';
import { SuiteLines } from './suite-lines.js';
import { color } from './color.js';

export function Header({ view }: { view: RunView }) {
  const i = view.init;
  if (!i) return null;
  const budget = [
    `${i.budget.max_turns} turns`,
    i.budget.max_cost_usd !== null ? `$${i.budget.max_cost_usd}` : null,
    i.budget.max_tokens !== null ? `${i.budget.max_tokens} tokens` : null,
  ]
    .filter(Boolean)
    .join(', ');
  // One fact a line, each wrapped rather than cut: on a narrow terminal a long path or model name
  // takes two lines, and the run id and the repro target are never cut off.
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text wrap="wrap">
        <Text bold>piper-agent</Text> {i.repo}
      </Text>
      <Text wrap="wrap" dimColor>
        run {i.run_id}
      </Text>
      <Text wrap="wrap" dimColor>
        model {i.model}
      </Text>
      <Text wrap="wrap" dimColor>
        policy {i.policy} · budget {budget}
      </Text>
      {i.test ? (
        <Text wrap="wrap" dimColor>
          repro {i.test}
        </Text>
      ) : null}
      {view.environment ? (
        <Text wrap="wrap" dimColor>
          environment: {environmentText(view.environment)}
        </Text>
      ) : null}
      <Text wrap="wrap" dimColor>
        {TRUSTED} trusted · {UNVERIFIED} unverified · {PASS} passed · {FAIL} failed
      </Text>
    </Box>
  );
}

/** The trust gate's marks and a test's own result: four different glyphs, never one for both. */
const TRUSTED = '◆';
const UNVERIFIED = '⚠';
const PASS = '✓';
const FAIL = '✗';

function LineView({ line }: { line: Line }) {
  switch (line.kind) {
    case 'toolset':
      return (
        <Text wrap="truncate-end" dimColor>
          {' '}
          tools: {line.tools.join(', ')}
        </Text>
      );
    case 'call':
      return <CallLine line={line} />;
    case 'rejection':
      return (
        <Text wrap="truncate-end" color={color('red')}>
          {' '}
          ✗ rejected: {line.reason}
          {line.reselect ? ' (re-selecting)' : ''}
        </Text>
      );
    case 'index':
      return (
        <Text wrap="truncate-end" dimColor>
          {' '}
          code index: {indexText(line.event)}
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
    case 'say':
      return (
        <Text wrap="wrap" dimColor>
          {'  '}“{line.text}”
        </Text>
      );
    case 'observation':
      return <ObservationLine line={line} />;
    case 'question':
      return (
        <Text wrap="wrap" color={color('yellow')}>
          {' '}
          ? {line.text}
        </Text>
      );
    case 'answer':
      return <Text wrap="wrap"> ↳ {line.text.replaceAll('\n', '\n   ')}</Text>;
  }
}

/** A tool call: who asked for it (the model, or which trigger), the tool, its arguments cut short. */
function CallLine({ line }: { line: Extract<Line, { kind: 'call' }> }) {
  return (
    <Text wrap="truncate-end">
      {'  '}
      <Text color={color(line.origin === 'trigger' ? 'magenta' : 'cyan')}>
        {line.origin === 'trigger' ? `⚙ ${line.trigger ?? 'trigger'}` : '▸ model'}
      </Text>{' '}
      {line.tool} <Text dimColor>{shortArgs(line.args, 70)}</Text>
    </Text>
  );
}

/** An observation with the trust gate's mark, a test's own pass or fail, and its failed tests. */
function ObservationLine({ line }: { line: Extract<Line, { kind: 'observation' }> }) {
  const mark = line.trust === null ? '' : line.trust === 'trusted' ? `${TRUSTED} ` : `${UNVERIFIED} `;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        {'    '}
        <Text color={color(line.trust === 'unverified' ? 'yellow' : 'green')}>{mark}</Text>
        {/* A refusal's summary says it all (`denied by you: …`); other kinds are named first. */}
        {line.what === 'denied' ? null : `${line.what}: `}
        {line.passed === null ? null : (
          <Text color={color(line.passed ? 'green' : 'red')}>{line.passed ? PASS : FAIL} </Text>
        )}
        {line.summary}
        {line.trust === 'unverified' ? (
          <Text color={color('yellow')}> [unverified{line.caveat ? `: ${line.caveat}` : ''}]</Text>
        ) : null}
      </Text>
      {line.failures ? <Failures failures={line.failures} indent="      " /> : null}
    </Box>
  );
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
  const now = useNow();
  return (
    <Text wrap="truncate-end" color={color('blue')}>
      {'    '}
      {frameAt(now)} {isSandboxed(tool) ? 'sandbox: ' : ''}
      {tool} {((now - since) / 1000).toFixed(1)} s
    </Text>
  );
}

function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const frameAt = (now: number): string => FRAMES[Math.floor(now / 100) % FRAMES.length]!;

/** The environment build, on one line that moves: its phase, its step, and for how long so far. */
export function SetupLine({ setup }: { setup: SetupProgress }) {
  const now = useNow();
  return (
    <Text wrap="truncate-end" color={color('blue')}>
      {frameAt(now)} building the environment: {setup.phase}
      {setup.step ? ` · ${setup.step}` : ''} · {((now - setup.since) / 1000).toFixed(1)} s
    </Text>
  );
}

/** While the model's reply is awaited: which model, and for how long. */
export function Thinking({ model, since }: { model: string; since: number }) {
  const now = useNow();
  return (
    // Wrapped, time first: a long model name (a script path) takes a second line, not the time.
    <Text wrap="wrap" color={color('blue')}>
      {'  '}
      {frameAt(now)} thinking {((now - since) / 1000).toFixed(1)} s · {model}
    </Text>
  );
}

/** Each failed test by node id, and under it the first line pytest explained it with. */
function Failures({ failures, indent }: { failures: TestFailure[]; indent: string }) {
  return (
    <Box flexDirection="column">
      {failures.map((f, i) => (
        <Box key={i} flexDirection="column">
          <Text wrap="wrap" color={color('red')}>
            {indent}
            {FAIL} {f.test}
          </Text>
          {f.line ? (
            <Text wrap="wrap" dimColor>
              {indent}
              {'  '}
              {f.line}
            </Text>
          ) : null}
        </Box>
      ))}
    </Box>
  );
}

/** The run's totals; while a box waits for the engineer, that first (and no spinner anywhere). */
export function Footer({ view, waiting = false }: { view: RunView; waiting?: boolean }) {
  const cost = view.costUsd === null ? 'cost —' : `$${view.costUsd.toFixed(4)}`;
  return (
    <Text wrap="truncate-end" dimColor>
      {waiting ? 'waiting for your answer · ' : ''}turn {view.turns}/{view.init?.budget.max_turns ?? '?'} ·{' '}
      {view.tokens} tokens · {cost} · Ctrl-C stops
    </Text>
  );
}

export function Final({ result, lastTest }: { result: RunResult; lastTest: RunView['lastTest'] }) {
  const good = result.outcome === 'resolved';
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={color(good ? 'green' : result.outcome === 'ask_user' ? 'yellow' : 'red')} wrap="wrap">
        {result.outcome}: {result.reason}
      </Text>
      {result.question ? <Text wrap="wrap">question: {result.question}</Text> : null}
      <Text wrap="wrap">
        repro test passed in the sandbox after the last edit:{' '}
        <Text bold>{result.verified ? 'yes' : 'no'}</Text>
      </Text>
      {verdictLines(result).map((line, i) => (
        <Text key={`verdict-${i}`} wrap="wrap" color={color('yellow')}>
          {line}
        </Text>
      ))}
      <SuiteLines suite={result.suite} />
      {lastTest && !lastTest.passed && lastTest.failures.length ? (
        <Box flexDirection="column">
          <Text wrap="wrap">last test run ({lastTest.target}) failed:</Text>
          <Failures failures={lastTest.failures} indent="  " />
        </Box>
      ) : null}
      {result.diff ? (
        <Box flexDirection="column" marginY={1}>
          {result.diff
            .trimEnd()
            .split('\n')
            .map((l, i) => (
              // Wrapped, not cut: a long changed line is the information.
              <Text
                key={i}
                wrap="wrap"
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
      </Text>
      {result.diff ? <Text wrap="wrap">undo: piper-agent undo {result.run_id}</Text> : null}
      {result.outcome === 'ask_user' ? (
        <Text wrap="wrap">answer: piper-agent resume {result.run_id} --answer &quot;...&quot;</Text>
      ) : null}
    </Box>
  );
}

/** Ctrl-C: the run is stopping; how to go on with it, and (only when it edited) how to undo it. */
export function Interrupted({ view }: { view: RunView }) {
  const id = view.init?.run_id;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold color={color('yellow')} wrap="wrap">
        interrupted: removing the running container and marking the ledger
      </Text>
      {id ? (
        <>
          <Text wrap="wrap">continue: piper-agent resume {id}</Text>
          {view.edited ? <Text wrap="wrap">undo: piper-agent undo {id}</Text> : null}
        </>
      ) : null}
    </Box>
  );
}
