// The headless renderers of the event stream: `stream-json` (one JSON object per line on stdout),
// `json` (the result object alone), `text` (readable lines). Logs go to stderr in every mode, so
// stdout stays machine-readable. The JSON formats follow the contract in stream-schema.ts.
import { verdictLines } from '../../policy/verdict-lines.js';
import type { EventSink, LoopEvent } from '../../policy/events.js';
import { inert, inertJson } from '../../runtime/text/inert.js';
import { STREAM_SCHEMA_VERSION } from './stream-version.js';
import { regressionLines, suiteLine } from '../../policy/regression/suite-report.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

/**
 * The one place every JSON line is stamped: `ts` (ISO 8601 UTC) on each event, and the schema
 * version on `init` so a consumer can refuse a stream it does not understand.
 */
export function stamped(event: LoopEvent, now: Date = new Date()): Record<string, unknown> {
  const ts = now.toISOString();
  return event.type === 'init' ? { schema: STREAM_SCHEMA_VERSION, ...event, ts } : { ...event, ts };
}

export function headlessSink(format: OutputFormat, out: NodeJS.WritableStream = process.stdout): EventSink {
  if (format === 'stream-json') return (event) => out.write(`${inertJson(JSON.stringify(stamped(event)))}\n`);
  if (format === 'json') {
    return (event) => {
      if (event.type === 'result') out.write(`${inertJson(JSON.stringify(stamped(event)))}\n`);
    };
  }
  // Text is for a terminal: everything in it (paths, the issue, sandbox output, model text) is made
  // inert. The JSON formats above stay exact: JSON.stringify escapes every control character.
  return (event) => {
    const line = textLine(event);
    if (line !== null) out.write(`${inert(line)}\n`);
  };
}

export function textLine(e: LoopEvent): string | null {
  switch (e.type) {
    case 'init':
      return `run ${e.run_id} · ${e.repo} · model ${e.model} · policy ${e.policy}${e.test ? ` · repro ${e.test}` : ''} · ≤ ${e.budget.max_turns} turns`;
    case 'environment':
      return `environment: ${environmentText(e)}`;
    case 'index':
      return `code index: ${indexText(e)}`;
    case 'turn':
      return `\nturn ${e.turn}`;
    case 'toolset':
      return `  tools: ${e.tools.join(', ')}${e.truncated ? ' (truncated)' : ''}`;
    case 'proposal':
      return `  ${e.origin === 'trigger' ? `trigger${e.trigger ? ` ${e.trigger}` : ''}` : 'model'} → ${e.tool} ${shortArgs(e.args)}`;
    case 'rejection':
      return `  rejected: ${e.reason}${e.reselect ? ' (one re-selection)' : ''}`;
    case 'noop':
      return `  no-op turn: ${e.reason}`;
    case 'execution':
      return e.phase === 'finished' && e.exit_code !== null && e.exit_code !== undefined
        ? `    sandbox: exit ${e.exit_code}${e.timed_out ? ' (timed out)' : ''} in ${((e.ms ?? 0) / 1000).toFixed(1)} s`
        : null;
    case 'observation':
      // A refusal's summary says it all (`denied by you: …`); other kinds are named first.
      return `    ${e.kind === 'denied' ? '' : `${e.kind}: `}${e.summary}${e.trust === 'unverified' ? ` [unverified${e.caveat ? `: ${e.caveat}` : ''}]` : ''}`;
    case 'usage':
      return null;
    case 'ask_user':
      return `  question for you: ${e.question}`;
    case 'answer':
      return `  answer: ${e.answer}`;
    case 'suite':
      return e.phase === 'started'
        ? `\nsuite: running the project's tests after the fix (${e.command})`
        : null;
    case 'result':
      return [
        '',
        `outcome: ${e.outcome} — ${e.reason}`,
        `repro test passed in the sandbox after the last edit: ${e.verified ? 'yes' : 'no'}`,
        ...verdictLines(e),
        ...(e.suite ? [suiteLine(e.suite), ...regressionLines(e.suite)] : []),
        `turns ${e.turns} · tokens ${e.tokens} · cost ${e.cost_usd === null ? 'unknown' : `$${e.cost_usd.toFixed(4)}`}`,
        e.diff ? `\n${e.diff.trimEnd()}\n` : 'no edits',
        `run ${e.run_id}${e.diff ? ` · undo: piper-agent undo ${e.run_id}` : ''}${e.outcome === 'ask_user' ? ` · answer: piper-agent resume ${e.run_id} --answer "..."` : ''}`,
      ].join('\n');
  }
}

/**
 * One line for the run's environment: which image, reused or built in how long. Not where each
 * requirement came from: a pip that found nothing with Debian's packages meeting the rest is the
 * ordinary offline case, not news, and an environment that could not be built stopped the run with
 * what each source said. What best effort relaxed or left out is news, and is said. The event's `sources`, the
 * ledger's environments row and `piper-agent env build` keep them.
 */
export function environmentText(e: Extract<LoopEvent, { type: 'environment' }>): string {
  const what =
    e.status === 'base'
      ? 'the bare sandbox image'
      : e.status === 'user'
        ? `${e.image} (user-provided)`
        : `${e.image} (${e.status === 'hit' ? 'reused' : `built in ${e.seconds.toFixed(1)} s`})`;
  // Something off is said: a fallback from Debian's packages, what best effort relaxed or left out.
  const off = [
    ...(e.fallback ? ["fallback build from Debian's packages: the index did not answer"] : []),
    ...e.shortfalls,
  ];
  return off.length ? `${what} · ${off.join(' · ')}` : what;
}

export function indexText(e: Extract<LoopEvent, { type: 'index' }>): string {
  if (e.phase === 'started') return 'indexing the repository…';
  const cached = (e.files ?? 0) - (e.parsed ?? 0);
  return `${e.files ?? 0} files, ${e.entities ?? 0} entities${cached > 0 ? ` (${cached} from the cache)` : ''} in ${(e.seconds ?? 0).toFixed(1)} s`;
}

export function shortArgs(args: Record<string, unknown>, max = 100): string {
  const parts = Object.entries(args).map(([k, v]) => {
    const text =
      typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v) : JSON.stringify(v);
    return `${k}=${text}`;
  });
  const joined = parts.join(' ');
  return joined.length > max ? `${joined.slice(0, max - 1)}…` : joined;
}
