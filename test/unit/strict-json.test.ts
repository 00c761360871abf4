// Hostile model replies: the strict reader behind both reply protocols, and the
// proposal parser's no-op turns for duplicate keys, deep nesting and oversize replies.
import { describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES, parseNativeCalls, parseProposal, parseReply } from '../../policy/proposal.js';
import { MAX_JSON_DEPTH, parseStrictJson, scanJson } from '../../policy/strict-json.js';

const reasonOf = (text: string) => {
  const parsed = parseProposal(text);
  return parsed.ok ? null : parsed.reason;
};

describe('parseStrictJson', () => {
  it('reads what JSON.parse reads, value for value', () => {
    for (const text of [
      '{}',
      '[]',
      ' {"a": [1, -2.5e3, 0, -0, 1E2, true, false, null, "x"], "b": {"c": "d\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"}} ',
      '"just a string"',
      '12',
      '{"__proto__": {"polluted": 1}}',
      '[[[[[[[[[[1]]]]]]]]]]',
      '{"é": "日本", "": ""}',
    ]) {
      const scan = parseStrictJson(text);
      expect(scan.ok, text).toBe(true);
      expect(scan.ok && scan.value).toEqual(JSON.parse(text));
    }
    const proto = parseStrictJson('{"__proto__": {"polluted": 1}}');
    expect(proto.ok && Object.keys(proto.value as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('refuses what JSON.parse refuses', () => {
    for (const text of [
      '',
      '{',
      '{"a":}',
      "{'a': 1}",
      '{"a": 1,}',
      '[1,]',
      '01',
      '1.',
      '-',
      '"\\x41"',
      '"\\u12"',
      '"a\nb"',
      'tru',
      'NaN',
      '{"a" 1}',
      '{} {}',
    ]) {
      expect(() => JSON.parse(text), text).toThrow();
      const scan = parseStrictJson(text);
      expect(scan.ok, text).toBe(false);
      expect(!scan.ok && scan.kind).toBe('syntax');
    }
  });
  it('refuses a duplicate key at any level, naming it and where', () => {
    expect(parseStrictJson('{"tool":"stop","tool":"execute"}')).toEqual({
      ok: false,
      kind: 'duplicate_key',
      reason: 'duplicate key "tool" in $',
    });
    const nested = parseStrictJson('{"args": {"x": [{"k": 1, "k": 2}]}}');
    expect(!nested.ok && nested.reason).toBe('duplicate key "k" in $.args.x[0]');
    // The same key written two ways is the same key.
    expect(parseStrictJson('{"tool": 1, "t\\u006fol": 2}').ok).toBe(false);
  });
  it('refuses nesting deeper than the limit, without recursing past it', () => {
    const at = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(parseStrictJson(at).ok).toBe(true);
    const over = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(parseStrictJson(over)).toMatchObject({ ok: false, kind: 'too_deep' });
    const million = '{"a":'.repeat(1_000_000);
    expect(parseStrictJson(million)).toMatchObject({ ok: false, kind: 'too_deep' });
  });
  it('scanJson reports where the first value ends', () => {
    expect(scanJson('  {"a": "}"} tail')).toEqual({ ok: true, value: { a: '}' }, end: 12 });
  });
});

describe('hostile replies are no-op turns with their reason', () => {
  it('duplicate keys never run the last one: {"tool":"stop","tool":"execute"}', () => {
    expect(reasonOf('{"tool":"stop","tool":"execute","args":{"code":"print(1)"}}')).toBe(
      'malformed JSON: duplicate key "tool" in $',
    );
    expect(reasonOf('{"tool":"execute","args":{"code":"a","code":"b"}}')).toBe(
      'malformed JSON: duplicate key "code" in $.args',
    );
    expect(
      parseNativeCalls([{ name: 'execute', arguments: '{"code":"print(1)","code":"import os"}' }]),
    ).toEqual({
      ok: false,
      reason: 'malformed JSON in the arguments of execute: duplicate key "code" in $',
      protocolViolation: false,
    });
  });
  it('deep nesting', () => {
    const deep = `{"tool":"stop","args":{"reason":${'['.repeat(100_000)}}}`;
    expect(reasonOf(deep)).toMatch(/^JSON nested deeper than 64 levels \(at \$\.args\.reason\[0\]/);
    const call = parseNativeCalls([
      { name: 'stop', arguments: `{"r":${'{"a":'.repeat(70)}1${'}'.repeat(71)}` },
    ]);
    expect(!call.ok && call.reason).toMatch(/^JSON in the arguments of stop nested deeper than 64 levels/);
  });
  it('a reply over 1 MiB, in either protocol', () => {
    const big = `{"tool":"stop","args":{"reason":"${'x'.repeat(MAX_REPLY_BYTES)}"}}`;
    expect(reasonOf(big)).toBe(`reply too large: ${big.length} bytes, over the 1 MiB cap (1048576 bytes)`);
    const reply = parseReply({ text: null, toolCalls: [{ name: 'stop', arguments: big }] }, 'tools');
    expect(!reply.ok && reply.reason).toMatch(/^reply too large: \d+ bytes in the arguments of stop, over/);
    // Multi-byte text counts in bytes: 400,000 × 3 bytes is over, although under a million characters.
    expect(reasonOf(`{"tool":"stop","args":{"reason":"${'日'.repeat(400_000)}"}}`)).toMatch(/too large/);
  });
  it('ordinary replies read as before', () => {
    expect(parseProposal('{"tool":"stop","args":{"reason":"done"}}')).toEqual({
      ok: true,
      proposal: { tool: 'stop', args: { reason: 'done' } },
      via: 'json',
    });
  });
});
