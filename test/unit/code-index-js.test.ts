// The code index of a TypeScript/JavaScript repository: real TS, TSX and JS snippets through the
// real grammars (WASM) into entities and selectors, a real SQLite ledger, and the cache keyed by language.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { moduleSelector } from '../../primitives/index/selector.js';
import { readEntity } from '../../primitives/tools/read-entity/effect.js';
import { searchSymbol } from '../../primitives/tools/search-symbol/effect.js';
import type { Entity } from '../../primitives/types.js';
import { Ledger } from '../../runtime/ledger/ledger.js';

const temps: string[] = [];
const ledgers: Ledger[] = [];
afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function repoWith(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'piper-index-js-'));
  temps.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function ledgerIn(root: string): Ledger {
  const ledger = Ledger.open(join(root, '..', `${root.split('/').pop()}.db`));
  temps.push(join(root, '..', `${root.split('/').pop()}.db`));
  ledgers.push(ledger);
  return ledger;
}

async function indexOf(files: Record<string, string>): Promise<CodeIndex> {
  const root = repoWith(files);
  return CodeIndex.open(root, ledgerIn(root), { language: 'javascript', threads: 1 });
}

const summary = (index: CodeIndex) => index.all().map((e) => `${e.kind} ${e.selector}`);
const must = (index: CodeIndex, selector: string): Entity => {
  const e = index.get(selector);
  if (!e) throw new Error(`no entity ${selector}; have ${summary(index).join(', ')}`);
  return e;
};

const SERVICE_TS = `import { Injectable } from './di';

/** Adds numbers.
 * Twice as fast. */
@Injectable({ scope: 'app' })
export class Calc<T> extends Base implements Op {
  @Input() name: string;
  private readonly cache = new Map<string, number>();
  handle = async (e: Event): Promise<void> => { await go(e); };

  get size(): number { return this.cache.size; }
  set size(value: number) {}

  add(a: string): string;
  add(a: number): number;
  add(a: any): any {
    return a + a;
  }

  static async *stream(): AsyncGenerator<number> { yield 1; }
  #secret() { return 2; }
}

export function parse(text: string): number;
export function parse(text: string, radix: number): number;
export function parse(text: string, radix = 10): number {
  return Number.parseInt(text, radix);
}

export const double = (x: number) => x * 2;
const triple = function (x: number) { return x * 3; };
export const LIMIT = 10, OTHER = 'x';
const hidden = 3;

export const api = {
  get(id: string) { return fetch(id); },
  post: async (body: unknown) => send(body),
  nested: { deep() {} },
  plain: 1,
};

export interface Shape { area(): number }
export type Id = string | number;
export enum Color { Red, Green }
export abstract class Abs { abstract run(): void; }
declare function ambient(x: number): void;

export default function () { return register(api.get({ inner() {} })); }
`;

describe('selectors of JavaScript/TypeScript modules', () => {
  it('follow the dotted path rule without the ending', () => {
    expect(moduleSelector('src/util/math.ts')).toBe('src.util.math');
    expect(moduleSelector('src/util/index.tsx')).toBe('src.util.index');
    expect(moduleSelector('lib/types.d.ts')).toBe('lib.types.d');
    expect(moduleSelector('bin/cli.mjs')).toBe('bin.cli');
    expect(moduleSelector('pkg/__init__.py')).toBe('pkg');
  });
});

describe('the code index of TypeScript', () => {
  it('makes entities of classes, members, overloads, consts, object-literal methods and types', async () => {
    const index = await indexOf({ 'src/service.ts': SERVICE_TS });
    expect(summary(index)).toEqual([
      'module src.service',
      'class src.service.Calc',
      'method src.service.Calc.handle',
      'method src.service.Calc.size',
      'method src.service.Calc.size',
      'method src.service.Calc.add',
      'method src.service.Calc.stream',
      'method src.service.Calc.#secret',
      'function src.service.parse',
      'function src.service.double',
      'function src.service.triple',
      'class src.service.LIMIT',
      'class src.service.OTHER',
      'class src.service.api',
      'method src.service.api.get',
      'method src.service.api.post',
      'class src.service.api.nested',
      'method src.service.api.nested.deep',
      'class src.service.Shape',
      'class src.service.Id',
      'class src.service.Color',
      'class src.service.Abs',
      'method src.service.Abs.run',
      'function src.service.ambient',
      'function src.service.default',
    ]);
  });

  it('spans decorators, export and overload signatures; signatures stop at the body', async () => {
    const index = await indexOf({ 'src/service.ts': SERVICE_TS });
    const calc = must(index, 'src.service.Calc');
    expect(calc.signature).toBe(
      "@Injectable({ scope: 'app' })\nexport class Calc<T> extends Base implements Op",
    );
    expect(calc.doc).toBe('Adds numbers.');
    expect(calc.startLine).toBe(5);
    const add = must(index, 'src.service.Calc.add');
    expect(add.signature).toBe('add(a: string): string;\nadd(a: number): number;\nadd(a: any): any');
    expect([add.startLine, add.endLine]).toEqual([14, 18]);
    const parse = must(index, 'src.service.parse');
    expect(parse.startLine).toBe(24);
    expect(parse.signature.split('\n')).toHaveLength(3);
    expect(must(index, 'src.service.Calc.handle').async).toBe(true);
    expect(must(index, 'src.service.Calc.stream').async).toBe(true);
    expect(must(index, 'src.service.double').signature).toBe('export const double = (x: number) =>');
    expect(must(index, 'src.service.api').signature).toBe('export const api =');
    expect(must(index, 'src.service.Id').signature).toBe('export type Id = string | number;');
    expect(index.get('src.service.hidden')).toBeUndefined();
  });

  it('answers the import form without a leading src, as for Python', async () => {
    const index = await indexOf({ 'src/service.ts': SERVICE_TS });
    expect(index.resolve('service.Calc.add')).toBe('src.service.Calc.add');
  });

  it('finds entities lexically by their body names', async () => {
    const index = await indexOf({ 'src/service.ts': SERVICE_TS });
    const best = index.lexicalSearch('parseInt radix')[0];
    expect(best?.entity.selector).toBe('src.service.parse');
  });
});

describe('read_entity and search_symbol on TypeScript', () => {
  it('find a method by name, read its body, and say a getter and setter share a selector', async () => {
    const index = await indexOf({ 'src/service.ts': SERVICE_TS });
    const found = await searchSymbol({ index }, { query: 'Calc.add' });
    expect(found.data?.matches[0]).toMatchObject({ selector: 'src.service.Calc.add', kind: 'method' });
    const read = await readEntity({ index }, { selector: 'src.service.Calc.add', body: true });
    expect(read.data?.body).toContain('return a + a;');
    const size = await readEntity({ index }, { selector: 'src.service.Calc.size' });
    expect(size.data?.note).toBe(
      'src.service.Calc.size is defined 2 times; this is the last definition (line 12 of src/service.ts)',
    );
  });
});

describe('the code index of TSX and JavaScript', () => {
  it('parses JSX in .tsx and .jsx files, CommonJS and ESM JavaScript', async () => {
    const index = await indexOf({
      'web/App.tsx': `export function App<T>({ items }: Props<T>) {\n  return <ul>{items.map((i) => <li key={i}>{i}</li>)}</ul>;\n}\nexport default class Page extends React.Component { render() { return <App items={[]} />; } }\n`,
      'web/Button.jsx': `export const Button = ({ label }) => <button onClick={() => go()}>{label}</button>;\n`,
      'lib/old.js': `function legacy(a, b) { return a + b; }\nclass Store { constructor() { this.x = 1; } save() {} }\nmodule.exports = { legacy, Store };\n`,
      'lib/new.mjs': `export async function load(url) { return import(url); }\n`,
      'lib/cfg.cjs': `const helpers = { pick(o, k) { return o[k]; } };\nmodule.exports = helpers;\n`,
    });
    expect(summary(index)).toEqual([
      'module lib.cfg',
      'class lib.cfg.helpers',
      'method lib.cfg.helpers.pick',
      'module lib.new',
      'function lib.new.load',
      'module lib.old',
      'function lib.old.legacy',
      'class lib.old.Store',
      'method lib.old.Store.constructor',
      'method lib.old.Store.save',
      'class lib.old.exports',
      'module web.App',
      'function web.App.App',
      'class web.App.Page',
      'method web.App.Page.render',
      'module web.Button',
      'function web.Button.Button',
    ]);
    expect(index.files().every((f) => !f.syntaxError)).toBe(true);
    expect(must(index, 'lib.new.load').async).toBe(true);
  });

  it('names what CommonJS and pre-class code define by assignment at the top level', async () => {
    const index = await indexOf({
      'lib/response.js': [
        "'use strict';",
        'var res = Object.create(http.ServerResponse.prototype);',
        'module.exports = res;',
        '/** Send a response. */',
        'res.send = function send(body) { return this.end(body); };',
        'exports.json = (obj) => JSON.stringify(obj);',
        'module.exports.status = async function (code) { this.statusCode = code; };',
        'Router.prototype.route = function route(path) { return path; };',
        'module.exports.helpers = { pick(o, k) { return o[k]; } };',
        'res[computed] = function () {};',
        'function inner() { exports.hidden = function () {}; }',
        '',
      ].join('\n'),
    });
    expect(summary(index)).toEqual([
      'module lib.response',
      'function lib.response.res.send',
      'function lib.response.json',
      'function lib.response.status',
      'function lib.response.Router.prototype.route',
      'class lib.response.helpers',
      'method lib.response.helpers.pick',
      'function lib.response.inner',
    ]);
    expect(must(index, 'lib.response.res.send').doc).toBe('Send a response.');
    expect(must(index, 'lib.response.status').async).toBe(true);
  });

  it('makes namespaces scopes: merged declarations in two of them are two selectors', async () => {
    const index = await indexOf({
      'src/spec.ts': [
        'export namespace A { export interface Types { x: number } export function f() { return 1; } }',
        'namespace B.C { export interface Types {} }',
        'declare namespace D { interface Types {} }',
        '',
      ].join('\n'),
    });
    expect(summary(index)).toEqual([
      'module src.spec',
      'class src.spec.A',
      'class src.spec.A.Types',
      'function src.spec.A.f',
      'class src.spec.B.C',
      'class src.spec.B.C.Types',
      'class src.spec.D',
      'class src.spec.D.Types',
    ]);
    expect(index.duplicates()).toEqual([]);
    expect(must(index, 'src.spec.D').signature).toBe('declare namespace D');
  });

  it('makes no entity of what an anonymous callback declares, but sees through a wrapper called at once', async () => {
    const index = await indexOf({
      'test/retry.ts': [
        "test('one', async () => { const customFetch = async () => 1; function helper() {} });",
        "test('two', async () => { const customFetch = async () => 2; });",
        'export function outer() { const inner = () => 1; return inner; }',
        '',
      ].join('\n'),
      'lib/umd.js':
        '(function (root) {\n  function parse(s) { return s; }\n  root.parse = parse;\n})(this);\n',
    });
    expect(summary(index)).toEqual([
      'module lib.umd',
      'function lib.umd.parse',
      'module test.retry',
      'function test.retry.outer',
      'function test.retry.outer.inner',
    ]);
  });

  it('indexes a file with a syntax error as far as it parses, and says so', async () => {
    const index = await indexOf({
      'src/broken.ts': 'export function ok() { return 1; }\nexport function bad( {\n',
    });
    expect(index.files()[0]?.syntaxError).toBe(true);
    expect(index.get('src.broken.ok')).toBeDefined();
  });

  it('keeps a Python index and a TypeScript index of one repository apart in the cache', async () => {
    const root = repoWith({ 'a.py': 'def f():\n    pass\n', 'b.ts': 'export function g() {}\n' });
    const ledger = ledgerIn(root);
    const python = await CodeIndex.open(root, ledger);
    expect(summary(python)).toEqual(['module a', 'function a.f']);
    const script = await CodeIndex.open(root, ledger, { language: 'javascript' });
    expect(summary(script)).toEqual(['module b', 'function b.g']);
    const again = await CodeIndex.open(root, ledger, { language: 'javascript' });
    expect(again.parseCount).toBe(0);
    const pythonAgain = await CodeIndex.open(root, ledger);
    expect(summary(pythonAgain)).toEqual(['module a', 'function a.f']);
  });
});
