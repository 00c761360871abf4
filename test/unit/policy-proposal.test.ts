import { describe, expect, it } from 'vitest';
import { parseNativeCalls, parseProposal, parseReply } from '../../policy/proposal.js';
import { classifyProposal } from '../../policy/validate.js';

const VALID = '{ "tool": "read_entity", "args": { "selector": "src.calc.ops.Calc.add" } }';
const proposal = { tool: 'read_entity', args: { selector: 'src.calc.ops.Calc.add' } };
const reasonOf = (text: string) => {
  const parsed = parseProposal(text);
  return parsed.ok ? null : parsed.reason;
};

describe('parseProposal: exactly one JSON object', () => {
  it('accepts one object, with surrounding whitespace', () => {
    expect(parseProposal(VALID)).toEqual({ ok: true, proposal, via: 'json' });
    expect(parseProposal(`\n\n  ${VALID}  \n`)).toEqual({ ok: true, proposal, via: 'json' });
  });
  it('accepts a single ```json fence, or a bare ``` fence', () => {
    expect(parseProposal('```json\n' + VALID + '\n```')).toEqual({ ok: true, proposal, via: 'json' });
    expect(parseProposal('```\n' + VALID + '\n```\n')).toEqual({ ok: true, proposal, via: 'json' });
    expect(parseProposal('```JSON ' + VALID + '```')).toEqual({ ok: true, proposal, via: 'json' });
  });
  it('reads an absent args as {}', () => {
    expect(parseProposal('{"tool": "stop"}')).toEqual({
      ok: true,
      proposal: { tool: 'stop', args: {} },
      via: 'json',
    });
  });
  it('keeps braces and escapes inside strings', () => {
    const text =
      '{"tool":"edit_entity","args":{"selector":"a.b","search":"x = {\\"k\\": 1}","replace":"}{"}}';
    const parsed = parseProposal(text);
    expect(parsed.ok && parsed.proposal.args).toEqual({
      selector: 'a.b',
      search: 'x = {"k": 1}',
      replace: '}{',
    });
  });
  it('makes prose a no-op', () => {
    expect(reasonOf('I will read the function first.')).toBe('expected one JSON object, got prose');
    expect(reasonOf(`Sure! Here it is: ${VALID}`)).toBe('expected one JSON object, found text before it');
    expect(reasonOf(`${VALID}\nThis reads the function.`)).toBe(
      'expected one JSON object, found text after it',
    );
    expect(reasonOf('```json\n' + VALID + '\n```\nDone.')).toBe(
      'expected one JSON object, found text after the ``` fence',
    );
  });
  it('makes two objects, a list, a scalar or nothing a no-op', () => {
    expect(reasonOf(`${VALID}\n${VALID}`)).toBe('expected exactly one JSON object, got more than one');
    expect(reasonOf(`[${VALID}, ${VALID}]`)).toBe('expected one JSON object, got a list of 2');
    expect(reasonOf('42')).toBe('expected one JSON object, got number');
    expect(reasonOf('"read_entity"')).toBe('expected one JSON object, got string');
    expect(reasonOf('   ')).toBe('empty reply: expected one JSON object');
    expect(reasonOf('```json\n```')).toBe('empty ```json fence: expected one JSON object');
  });
  it('makes malformed JSON a no-op with the parser message', () => {
    expect(reasonOf('{"tool": "read_entity", "args": {"selector": }}')).toMatch(/^malformed JSON: /);
    expect(reasonOf('{"tool": "read_entity", "args": {')).toMatch(/^malformed JSON: /);
    expect(reasonOf("{'tool': 'stop'}")).toMatch(/^malformed JSON: /);
  });
  it('checks the shape: string tool, object args, no other keys', () => {
    expect(reasonOf('{"tool": 3, "args": {}}')).toBe('"tool" must be a string, got number');
    expect(reasonOf('{"args": {}}')).toBe('missing "tool" in the proposal');
    expect(reasonOf('{"tool": "read_entity", "args": ["a"]}')).toBe(
      '"args" must be a JSON object, got array',
    );
    expect(reasonOf('{"tool": "read_entity", "args": "selector=a"}')).toBe(
      '"args" must be a JSON object, got string',
    );
    expect(reasonOf('{"tool": "read_entity", "args": null}')).toBe('"args" must be a JSON object, got null');
    expect(reasonOf('{"tool": "stop", "args": {}, "thought": "done"}')).toBe(
      'unexpected key "thought" in the proposal (only "tool" and "args" are allowed)',
    );
  });
  it('refuses other fences and more than one fence', () => {
    expect(reasonOf('```python\nprint(1)\n```')).toBe(
      'a ```python fence: only a single ```json fence is accepted',
    );
    expect(reasonOf('```json\n' + VALID + '\n```\n```json\n' + VALID + '\n```')).toBe(
      'more than one ``` fence: expected a single ```json fence',
    );
    expect(reasonOf('```json\n' + VALID)).toBe('unterminated ``` fence');
  });
  it('passes reserved names through to classification', () => {
    const ask = parseProposal('{"tool": "ask_user", "args": {"question": "Which Python?"}}');
    expect(ask.ok && classifyProposal(ask.proposal)).toEqual({ kind: 'ask_user', question: 'Which Python?' });
    const stop = parseProposal('{"tool": "stop", "args": {"reason": "fixed"}}');
    expect(stop.ok && classifyProposal(stop.proposal)).toEqual({ kind: 'stop', reason: 'fixed' });
  });
});

describe('native function calling', () => {
  it('accepts exactly one call, its arguments parsed', () => {
    expect(
      parseNativeCalls([{ name: 'read_entity', arguments: '{"selector":"src.calc.ops.Calc.add"}' }]),
    ).toEqual({
      ok: true,
      proposal,
      via: 'native',
    });
    expect(parseNativeCalls([{ name: 'stop', arguments: '' }])).toEqual({
      ok: true,
      proposal: { tool: 'stop', args: {} },
      via: 'native',
    });
    expect(parseNativeCalls([{ name: 'stop', arguments: { reason: 'done' } }])).toMatchObject({ ok: true });
  });
  it('makes more than one call a protocol violation: a no-op, none run', () => {
    const parsed = parseNativeCalls([
      { name: 'read_entity', arguments: '{"selector":"a"}' },
      { name: 'run_test', arguments: '{"target":"t"}' },
    ]);
    expect(parsed).toEqual({
      ok: false,
      reason:
        'protocol violation: 2 tool calls in one reply (read_entity, run_test); exactly one is allowed, none was run',
      protocolViolation: true,
    });
  });
  it('makes no call, malformed or non-object arguments a no-op', () => {
    expect(parseNativeCalls([])).toEqual({
      ok: false,
      reason: 'no tool call in the reply',
      protocolViolation: false,
    });
    const bad = parseNativeCalls([{ name: 'read_entity', arguments: '{"selector":' }]);
    expect(!bad.ok && bad.reason).toMatch(/^malformed JSON in the arguments of read_entity: /);
    const list = parseNativeCalls([{ name: 'read_entity', arguments: '[1]' }]);
    expect(!list.ok && list.reason).toBe('the arguments of read_entity must be a JSON object, got array');
  });
  it('parseReply picks the protocol, and a tools reply without calls falls back to its text', () => {
    expect(parseReply({ text: VALID, toolCalls: [] }, 'json')).toMatchObject({ ok: true, via: 'json' });
    expect(parseReply({ text: null, toolCalls: [{ name: 'stop', arguments: '{}' }] }, 'tools')).toMatchObject(
      {
        ok: true,
        via: 'native',
      },
    );
    expect(parseReply({ text: VALID, toolCalls: [] }, 'tools')).toMatchObject({ ok: true, via: 'json' });
    expect(parseReply({ text: 'thinking...', toolCalls: [] }, 'tools')).toEqual({
      ok: false,
      reason:
        'no tool call in the reply, and the text is not a proposal: expected one JSON object, got prose',
      protocolViolation: false,
    });
    expect(parseReply({ text: null, toolCalls: [] }, 'tools')).toMatchObject({
      ok: false,
      reason: 'no tool call in the reply, and no text',
    });
  });
});
