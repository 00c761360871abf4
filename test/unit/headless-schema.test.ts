// The headless output contract: the golden stream (a real run, normalized) matches the published
// zod schemas line by line, the JSON Schema is generated from them, every JSON line is stamped, and
// the JSON formats are recognized on the command line for pre-run errors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorEvent, jsonOutputRequested } from '../../core/command-line/error-event.js';
import { headlessSink, stamped, textLine } from '../../cli/render/headless.js';
import {
  jsonOutputSchema,
  outputJsonSchema,
  STREAM_SCHEMA_VERSION,
  streamEventSchema,
} from '../../cli/render/stream-schema.js';
import { interruptedResult } from '../../core/fix/interrupted-result.js';
import { packageRoot } from '../../runtime/package-root.js';

const golden = readFileSync(
  join(packageRoot(), 'test', 'fixtures', 'golden', 'sample-fix.stream.jsonl'),
  'utf8',
);
const TS = '2026-12-01T10:00:00.000Z';

describe('the stream-json schema', () => {
  it('accepts every line of the golden stream, which starts with a versioned init and ends with a result', () => {
    const events = golden
      .trim()
      .split('\n')
      .map((line) => streamEventSchema.parse(JSON.parse(line.replaceAll('"<ts>"', JSON.stringify(TS)))));
    expect(events.length).toBeGreaterThan(10);
    expect(events[0]).toMatchObject({ type: 'init', schema: STREAM_SCHEMA_VERSION });
    expect(events.at(-1)).toMatchObject({ type: 'result', outcome: 'resolved' });
  });

  it('refuses a line without ts and an init without the schema version', () => {
    expect(streamEventSchema.safeParse({ type: 'turn', turn: 1 }).success).toBe(false);
    expect(streamEventSchema.safeParse({ type: 'turn', turn: 1, ts: 'yesterday' }).success).toBe(false);
    const init = JSON.parse(golden.split('\n')[0]!.replaceAll('"<ts>"', JSON.stringify(TS))) as Record<
      string,
      unknown
    >;
    expect(streamEventSchema.safeParse({ ...init, schema: undefined }).success).toBe(false);
  });

  it('is published as JSON Schema for the stream and for the json output', () => {
    const stream = outputJsonSchema('stream');
    expect(stream.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const types = (stream.oneOf as { properties: { type: { const: string } } }[]).map(
      (s) => s.properties.type.const,
    );
    expect(types).toEqual([
      'init',
      'environment',
      'index',
      'turn',
      'toolset',
      'proposal',
      'rejection',
      'noop',
      'execution',
      'observation',
      'usage',
      'ask_user',
      'answer',
      'suite',
      'result',
      'error',
    ]);
    const result = outputJsonSchema('result');
    expect((result.oneOf as unknown[]).length).toBe(2);
  });
});

describe('the code index events', () => {
  it('say the build started, then its counts, in text and as schema-valid stream events', () => {
    const started = { type: 'index', phase: 'started' } as const;
    const rebuilt = {
      type: 'index',
      phase: 'finished',
      files: 120,
      entities: 900,
      parsed: 120,
      seconds: 2.34,
    } as const;
    const reused = { ...rebuilt, parsed: 3, seconds: 0.21 } as const;
    expect(textLine(started)).toBe('code index: indexing the repository…');
    expect(textLine(rebuilt)).toBe('code index: 120 files, 900 entities in 2.3 s');
    expect(textLine(reused)).toBe('code index: 120 files, 900 entities (117 from the cache) in 0.2 s');
    for (const e of [started, rebuilt])
      expect(streamEventSchema.safeParse({ ...e, ts: TS }).success).toBe(true);
  });
});

describe('the headless sink and the error object', () => {
  it('stamps ts on every line and the schema on init only', () => {
    const now = new Date(TS);
    expect(stamped({ type: 'turn', turn: 2 }, now)).toEqual({ type: 'turn', turn: 2, ts: TS });
    const lines: string[] = [];
    const sink = headlessSink('stream-json', { write: (s: string) => lines.push(s) } as never);
    sink({ type: 'noop', turn: 1, reason: 'x' });
    expect(streamEventSchema.parse(JSON.parse(lines[0]!))).toMatchObject({ type: 'noop', reason: 'x' });
  });

  it('writes an interrupted result the json output schema accepts', () => {
    const result = interruptedResult({
      runId: 'r-1',
      signal: 'SIGTERM',
      exitCode: 143,
      turns: 2,
      record: { totals: () => ({ tokens: 10, costUsd: null }), diff: () => '' },
    });
    const parsed = jsonOutputSchema.parse(stamped(result));
    expect(parsed).toMatchObject({ outcome: 'interrupted', exit_code: 143, verified: false, turns: 2 });
  });

  it('knows a JSON format from --output, --output=, or PIPER_OUTPUT, and builds a valid error object', () => {
    expect(jsonOutputRequested(['--output', 'json'], {})).toBe(true);
    expect(jsonOutputRequested(['--output=stream-json'], {})).toBe(true);
    expect(jsonOutputRequested([], { PIPER_OUTPUT: 'json' })).toBe(true);
    expect(jsonOutputRequested(['--output', 'text'], { PIPER_OUTPUT: 'json' })).toBe(false);
    expect(jsonOutputRequested(['--', '--output', 'json'], {})).toBe(false);
    const e = errorEvent('config', 'no model configured', 2, undefined, new Date(TS));
    expect(jsonOutputSchema.parse(e)).toEqual({
      type: 'error',
      ts: TS,
      error: { kind: 'config', message: 'no model configured', exit_code: 2 },
    });
  });
});
