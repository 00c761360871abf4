// One folder per tool: primitives/tools/<name>/ declares the tool (schemas, how it runs, its
// precondition, its trust checks, whether it is presented by default) and holds its effect, and
// all-tools.ts is the one table of them. So a tool's name is a string literal in its own folder
// alone (a sandbox tool's also in the ledger's list of sandbox tools, the layer below), the generic
// readers (registry, validation, the trust gate, retrieval, the runner) import no tool's folder, and
// no tool call is cast on its way from validation to its effect. Also what the table derives for the
// runner: each tool's observation kind, subject and sandboxing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ALL_TOOLS,
  callSubject,
  isSandboxed,
  observationKind,
  TOOL_NAMES,
} from '../../primitives/tools/all-tools.js';
import { DEFAULT_TOOLS } from '../../policy/retrieve.js';
import { packageRoot } from '../../runtime/package-root.js';

const SOURCE_DIRS = ['cli', 'core', 'policy', 'primitives', 'runtime', 'eval', 'bench'];

function sourceFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const root = packageRoot();
const sources = SOURCE_DIRS.flatMap((dir) => sourceFiles(join(root, dir))).map((path) => ({
  path: path.slice(root.length + 1),
  text: readFileSync(path, 'utf8'),
}));

describe('one module per tool', () => {
  it('names each tool as a string literal in its own folder only', () => {
    expect(TOOL_NAMES).toEqual([
      'read_entity',
      'search_symbol',
      'search_code',
      'edit_entity',
      'run_test',
      'execute',
    ]);
    for (const tool of ALL_TOOLS) {
      const folder = `primitives/tools/${tool.name.replace(/_/g, '-')}/`;
      const allowed = (path: string) =>
        path.startsWith(folder) || (tool.sandboxed && path === 'runtime/ledger/sandbox-tools.ts');
      // A whole quoted literal: `'execute'` as a category of another tool counts too.
      const files = sources.filter((s) => s.text.includes(`'${tool.name}'`)).map((s) => s.path);
      const outside = files.filter(
        (path) => !allowed(path) && !(tool.name === 'execute' && isCategoryOnly(path)),
      );
      expect(outside, `'${tool.name}' outside ${folder}`).toEqual([]);
    }
  });

  it('keeps the generic readers of the table free of any one tool', () => {
    const readers = [
      'policy/registry.ts',
      'policy/validate.ts',
      'policy/trust.ts',
      'policy/retrieve.ts',
      'policy/turn/act.ts',
      'primitives/tool-runner.ts',
    ];
    for (const path of readers) {
      const text = sources.find((s) => s.path === path)?.text ?? '';
      expect(text, path).not.toBe('');
      expect(text.match(/primitives\/tools\/[a-z-]+\//g) ?? [], path).toEqual([]);
    }
  });

  it('casts no tool call: no `as never` in the runner, the tool modules or the loop', () => {
    const cast = sources.filter(
      (s) => /^(primitives\/(tool-runner\.ts|tools\/)|policy\/)/.test(s.path) && /\bas never\b/.test(s.text),
    );
    expect(cast.map((s) => s.path)).toEqual([]);
  });

  it('derives each tool’s observation kind, subject and sandboxing from its module', () => {
    expect(ALL_TOOLS.map((t) => [t.name, t.kind, t.sandboxed])).toEqual([
      ['read_entity', 'read', false],
      ['search_symbol', 'search', false],
      ['search_code', 'search', false],
      ['edit_entity', 'edit', false],
      ['run_test', 'test', true],
      ['execute', 'execute', true],
    ]);
    expect(observationKind('search_symbol', 'trigger')).toBe('symbol');
    expect(observationKind('search_symbol', 'model')).toBe('search');
    expect(observationKind('search_code', 'trigger')).toBe('search');
    expect(callSubject('edit_entity', { selector: 'a.b', search: 'x', replace: 'y' })).toBe('a.b');
    expect(callSubject('run_test', { target: 'tests/t.py', timeout: 5 })).toBe('tests/t.py');
    expect(callSubject('execute', { code: 'print(1)' })).toBe('print(1)');
    expect(callSubject('search_code', { query: 42 })).toBe('');
    expect(callSubject('lint', { selector: 'a.b' })).toBe('');
    expect(isSandboxed('run_test') && isSandboxed('execute')).toBe(true);
    expect(isSandboxed('lint') || isSandboxed('read_entity')).toBe(false);
  });

  it('keeps the default retrieval set the tools declare, in registry order', () => {
    expect(DEFAULT_TOOLS).toEqual(['read_entity', 'search_symbol', 'search_code', 'run_test']);
  });
});

/** A file whose only `'execute'` is the category another tool declares (`category: 'execute'`). */
function isCategoryOnly(path: string): boolean {
  const text = sources.find((s) => s.path === path)?.text ?? '';
  return text.split("'execute'").length - 1 === text.split("category: 'execute'").length - 1;
}
