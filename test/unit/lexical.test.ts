// The pieces of lexical search: identifier splitting and BM25 kept up to date document by document.
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../primitives/search/bm25.js';
import { identifierParts, tokenize } from '../../primitives/search/tokenize.js';

describe('tokenize', () => {
  it('splits snake_case and camelCase, keeping the whole identifier', () => {
    expect(identifierParts('parse_http_header')).toEqual(['parse_http_header', 'parse', 'http', 'header']);
    expect(identifierParts('parseHTTPHeader')).toEqual(['parsehttpheader', 'parse', 'http', 'header']);
    expect(identifierParts('fetchJSON')).toEqual(['fetchjson', 'fetch', 'json']);
    expect(identifierParts('sha256')).toEqual(['sha256', 'sha', '256']);
    expect(identifierParts('__init__')).toEqual(['init']);
    expect(identifierParts('Café')).toEqual(['café']);
  });

  it('drops stop words and one-letter parts, and strips plurals lightly', () => {
    expect(tokenize('Return the numbers of self.items')).toEqual(['number', 'item']);
    expect(tokenize('classes address status x 7')).toEqual(['class', 'address', 'status', '7']);
    expect(tokenize('Grüße an 🌍')).toEqual(['grüße']);
  });
});

describe('Bm25Index', () => {
  const docs: Record<string, string[]> = {
    a: ['cache', 'evict', 'entry'],
    b: ['store', 'fact', 'memory'],
    c: ['cache', 'cache', 'put', 'value', 'evict'],
    d: ['parse', 'header'],
  };

  it('scores documents holding the query terms, rarer terms higher', () => {
    const index = new Bm25Index<string>();
    for (const [id, terms] of Object.entries(docs)) index.add(id, terms);
    const scores = Object.fromEntries(index.score(['evict', 'fact']).map((s) => [s.id, s.score]));
    expect(Object.keys(scores).sort()).toEqual(['a', 'b', 'c']);
    expect(scores.b!).toBeGreaterThan(scores.a!); // "fact" is in one document, "evict" in two
    expect(index.score(['nothing'])).toEqual([]);
  });

  it('gives the same scores after remove + add as a fresh build', () => {
    const incremental = new Bm25Index<string>();
    for (const [id, terms] of Object.entries(docs)) incremental.add(id, terms);
    incremental.remove('d');
    incremental.add('c', ['cache', 'put']); // replaces c
    incremental.add('d', ['parse', 'header']);
    const fresh = new Bm25Index<string>();
    for (const [id, terms] of Object.entries({ ...docs, c: ['cache', 'put'] })) fresh.add(id, terms);
    const sorted = (xs: Array<{ id: string; score: number }>) =>
      [...xs].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(sorted(incremental.score(['cache', 'header']))).toEqual(sorted(fresh.score(['cache', 'header'])));
    expect(incremental.size).toBe(4);
  });
});
