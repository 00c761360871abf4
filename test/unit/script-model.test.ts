// The script model: a JSONL file of raw completions replayed one per model call, in order.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveModel } from '../../runtime/model/resolve.js';
import {
  loadScriptModel,
  parseScript,
  scriptLine,
  scriptModelFromReplies,
} from '../../runtime/model/script-model.js';
import { ModelError, type ChatRequest } from '../../runtime/model/types.js';

const dir = mkdtempSync(join(tmpdir(), 'piper-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scriptFile(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, lines.join('\n'));
  return file;
}

const REQUEST: ChatRequest = {
  messages: [{ role: 'user', content: 'x'.repeat(40) }],
  temperature: 0,
  maxTokens: 256,
};

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

const DEMO = [
  '// a demo run: read, then stop',
  '',
  JSON.stringify('{"tool": "read_entity", "args": {"selector": "calc.ops.add"}}'),
  '   ',
  '  // indented comment',
  JSON.stringify('this is not { json'),
  JSON.stringify({
    content: '{"tool": "stop", "args": {"reason": "done"}}',
    usage: { prompt_tokens: 5, completion_tokens: 3 },
  }),
];

describe('script model', () => {
  it('consumes the lines in order, one per call, skipping blanks and // comments', async () => {
    const model = loadScriptModel(scriptFile('demo.jsonl', DEMO));
    expect(model.remaining).toBe(3);
    const texts: Array<string | null> = [];
    for (let i = 0; i < 3; i++) texts.push((await model.complete(REQUEST)).text);
    expect(texts).toEqual([
      '{"tool": "read_entity", "args": {"selector": "calc.ops.add"}}',
      'this is not { json',
      '{"tool": "stop", "args": {"reason": "done"}}',
    ]);
    expect(model.remaining).toBe(0);
  });

  it('estimates usage as ceil(chars/4) when a line has none, uses it when given; cost 0', async () => {
    const model = loadScriptModel(scriptFile('usage.jsonl', DEMO));
    const first = await model.complete(REQUEST);
    expect(first.usage).toEqual({ promptTokens: 10, completionTokens: Math.ceil(first.text!.length / 4) });
    expect(first.costUsd).toBe(0);
    expect(first.model).toBe('script');
    expect(first.raw).toBe(DEMO[2]);
    expect(first.attempts).toEqual([{ n: 1, status: null, error: null, ms: 0, retryInMs: null }]);
    await model.complete(REQUEST);
    expect((await model.complete(REQUEST)).usage).toEqual({ promptTokens: 5, completionTokens: 3 });
  });

  it('ends with script_exhausted when asked for one reply too many', async () => {
    const model = loadScriptModel(scriptFile('short.jsonl', [JSON.stringify('only one')]));
    await model.complete(REQUEST);
    const error = await failure(model.complete(REQUEST));
    expect(error.kind).toBe('script_exhausted');
    expect(error.message).toContain('model call 2 (it holds 1)');
    expect(error.fix).toBeDefined();
  });

  it('replays tool calls (arguments as raw text), multi-call too, and infers protocol tools', async () => {
    const file = scriptFile('tools.jsonl', [
      JSON.stringify({ tool_calls: [{ name: 'search_symbol', arguments: '{"query": "MemStore"}' }] }),
      JSON.stringify({
        tool_calls: [
          { name: 'read_entity', arguments: { selector: 'a.b' } },
          { name: 'run_test', arguments: '{"target": ' },
        ],
      }),
    ]);
    const model = loadScriptModel(file);
    expect(model.protocol).toBe('tools');
    expect(model.id).toBe(`script:${file}`);
    const one = await model.complete(REQUEST);
    expect(one.text).toBeNull();
    expect(one.toolCalls).toEqual([{ name: 'search_symbol', arguments: '{"query": "MemStore"}' }]);
    const two = await model.complete(REQUEST);
    expect(two.toolCalls).toEqual([
      { name: 'read_entity', arguments: '{"selector":"a.b"}' },
      { name: 'run_test', arguments: '{"target": ' },
    ]);
  });

  it('a script of text lines speaks protocol json', () => {
    expect(loadScriptModel(scriptFile('json.jsonl', DEMO)).protocol).toBe('json');
  });

  it('refuses a bad line before the run starts, naming file and line', () => {
    const bad = (lines: string[]) => () => parseScript(lines.join('\n'), 'demo.jsonl');
    expect(bad(['// ok', 'not json at all'])).toThrow(/demo\.jsonl:2: not JSON/);
    expect(bad(['42'])).toThrow(/demo\.jsonl:1: a line must be a JSON string or an object/);
    expect(bad(['{"contents": "typo"}'])).toThrow(/unknown key "contents"/);
    expect(bad(['{"tool_calls": [{"arguments": "{}"}]}'])).toThrow(/needs a string "name"/);
    expect(bad(['{"content": "x", "usage": {"prompt_tokens": 1}}'])).toThrow(/usage/);
  });

  it('a missing script file is a config error', () => {
    expect(() => loadScriptModel(join(dir, 'absent.jsonl'))).toThrow(/cannot read the model script .*ENOENT/);
  });

  it('replays raw outputs verbatim, comment-looking ones included', async () => {
    const model = scriptModelFromReplies(['// not a comment here', '{"tool": "stop", "args": {}}']);
    expect(model.id).toBe('script:replay');
    expect((await model.complete(REQUEST)).text).toBe('// not a comment here');
    expect((await model.complete(REQUEST)).raw).toBe('{"tool": "stop", "args": {}}');
    expect((await failure(model.complete(REQUEST))).kind).toBe('script_exhausted');
  });

  it('scriptLine writes a reply as a line that replays to the same reply', async () => {
    const reply = {
      text: null,
      toolCalls: [{ name: 'execute', arguments: '{"code": "print(1)"}' }],
      usage: { promptTokens: 120, completionTokens: 9 },
    };
    const [entry] = parseScript(scriptLine(reply), 'recorded');
    expect(entry).toMatchObject(reply);
  });

  it('an aborted signal stops the call without consuming a line', async () => {
    const model = scriptModelFromReplies(['a']);
    const error = await failure(model.complete(REQUEST, AbortSignal.abort()));
    expect(error.kind).toBe('aborted');
    expect(model.remaining).toBe(1);
  });

  it('loads the demo script shipped in test/fixtures as four JSON-protocol replies', async () => {
    const model = resolveModel('script:test/fixtures/models/sample-fix.jsonl', { env: {} });
    expect(model.protocol).toBe('json');
    const tools: string[] = [];
    for (let i = 0; i < 4; i++) tools.push(JSON.parse((await model.complete(REQUEST)).text!).tool);
    expect(tools).toEqual(['read_entity', 'edit_entity', 'run_test', 'stop']);
    expect((await failure(model.complete(REQUEST))).kind).toBe('script_exhausted');
  });

  it('resolveModel("script:FILE") resolves a relative path against cwd', async () => {
    scriptFile('relative.jsonl', [JSON.stringify('hello')]);
    const model = resolveModel('script:relative.jsonl', { cwd: dir, env: {} });
    expect(model.id).toBe('script:relative.jsonl');
    expect((await model.complete(REQUEST)).text).toBe('hello');
    expect(() => resolveModel('script:', { env: {} })).toThrow(/names no file/);
  });
});
