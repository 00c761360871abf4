// The symbol trigger's scan: the same tokens as the spec's regexes, in linear
// time, with tokens over 256 characters skipped. A 10 MB issue used to stall for minutes.
import { describe, expect, it } from 'vitest';
import { camelWords, dottedSymbols, MAX_SYMBOL_TOKEN } from '../../policy/symbol-scan.js';
import { CAMEL_REGEX, SYMBOL_REGEX, symbolTokens, TriggerGate } from '../../policy/triggers.js';

const queryOf = (call: { args: object }) => (call.args as { query?: string }).query;

const byRegex = (text: string, regex: RegExp) =>
  [...text.matchAll(regex)].map((m) => ({ index: m.index, token: m[0] }));

/** A small seeded generator, so a failure names a reproducible input. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('the linear scan finds what the spec regexes find', () => {
  it('on 5,000 random strings over the characters that matter', () => {
    const next = random(42);
    const alphabet = ['a', 'Z', '_', '7', '.', '.', ' ', 'é', '-', '\n', 'Q'];
    for (let n = 0; n < 5_000; n++) {
      const length = Math.floor(next() * 30);
      let text = '';
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      expect(dottedSymbols(text), JSON.stringify(text)).toEqual(byRegex(text, SYMBOL_REGEX));
      expect(camelWords(text), JSON.stringify(text)).toEqual(byRegex(text, CAMEL_REGEX));
    }
  });
  it('on the shapes issues have', () => {
    for (const text of [
      'memstore.MemStore.remember drops items; see os.path. and 3.14, v1.2.3, 12ab.cd',
      'a.b.1c.d a..b _x._y. x.y.z.',
      'Fix `calc.ops.Calc.add` (src/calc/ops.py) — HTTPServer.serve_forever()',
    ]) {
      expect(dottedSymbols(text)).toEqual(byRegex(text, SYMBOL_REGEX));
      expect(camelWords(text)).toEqual(byRegex(text, CAMEL_REGEX));
    }
  });
  it('skips a token over the bound, keeps one at it', () => {
    const at = `${'a'.repeat(MAX_SYMBOL_TOKEN - 2)}.b`;
    const over = `${'a'.repeat(MAX_SYMBOL_TOKEN - 1)}.b`;
    expect(symbolTokens(`${at} ${over} x.y`)).toEqual([at, 'x.y']);
    expect(symbolTokens(`${'A'.repeat(MAX_SYMBOL_TOKEN + 1)} Foo`, { camel: true })).toEqual(['Foo']);
  });
});

describe('a 10 MB issue', () => {
  const MB10 = 10 * 1024 * 1024;
  const timed = <T>(label: string, body: () => T): T => {
    const start = performance.now();
    const value = body();
    console.log(`${label}: ${(performance.now() - start).toFixed(0)} ms`);
    return value;
  };
  it('of one long token (no dot, then a dotted one) completes', () => {
    const one = 'a'.repeat(MB10);
    expect(timed('10 MB, one token', () => new TriggerGate({ symbolCamel: true }).onText(one))).toEqual([]);
    const dotted = `${'a'.repeat(MB10 / 2)}.${'b'.repeat(MB10 / 2)} then calc.ops.add`;
    const calls = timed('10 MB, one dotted token', () => new TriggerGate().onText(dotted));
    expect(calls.map(queryOf)).toEqual(['calc.ops.add']);
  });
  it('of many tokens completes, first three fire', () => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < MB10; i++) {
      parts.push(`m${i}.Cls${i % 97}.f_${i} x${i} `);
      size += parts.at(-1)!.length;
    }
    const text = parts.join('');
    const calls = timed('10 MB, many tokens', () => new TriggerGate({ symbolCamel: true }).onText(text));
    // CamelCase on: `Cls0` is a word of its own too, found after the dotted token it starts in.
    expect(calls.map(queryOf)).toEqual(['m0.Cls0.f_0', 'Cls0', 'm1.Cls1.f_1']);
    // Every token, past the first three: what the regex would give, from one linear pass.
    const all = timed('10 MB, many tokens, all of them', () => symbolTokens(text));
    expect(all.length).toBe(parts.length);
  });
});
