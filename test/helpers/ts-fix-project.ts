// The small TypeScript project the `fix` tests run on, headless and in the TUI: `add` subtracts
// (the repro test, node:test, fails on it), a second test file on another module passes before and
// after (the regression gate's suite), and the scripted model whose first edit breaks a type (tsc
// refuses it) and whose second fixes the bug. Both tests write the same files, so the environment's
// key is the same and the image built for one is reused by the other.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { writeProject } from './js-env.js';

export const TS_TARGET = 'test/math.test.ts';
export const TS_EDITED = 'src/math.ts';

export const TS_PROJECT: Record<string, string> = {
  '.nvmrc': '24\n',
  'package.json': JSON.stringify({
    name: 'tsmath',
    version: '1.0.0',
    type: 'module',
    scripts: { test: 'node --test' },
    devDependencies: { typescript: '5.9.3' },
  }),
  'tsconfig.json': JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'nodenext', target: 'es2022' },
    include: ['src'],
  }),
  [TS_EDITED]: [
    '/** The sum of two numbers. */',
    'export function add(a: number, b: number): number {',
    '  return a - b;',
    '}',
    '',
  ].join('\n'),
  'src/words.ts': [
    '/** The words of a text, split on whitespace. */',
    'export function words(text: string): string[] {',
    '  return text.split(/\\s+/).filter(Boolean);',
    '}',
    '',
  ].join('\n'),
  [TS_TARGET]: [
    "import { test } from 'node:test';",
    "import assert from 'node:assert';",
    "import { add } from '../src/math.ts';",
    '',
    "test('add sums', () => assert.strictEqual(add(2, 3), 5));",
    '',
  ].join('\n'),
  // Passes before the fix and must pass after it: what the regression gate compares.
  'test/words.test.ts': [
    "import { test } from 'node:test';",
    "import assert from 'node:assert';",
    "import { words } from '../src/words.ts';",
    '',
    "test('words splits on spaces', () => assert.deepStrictEqual(words('a b'), ['a', 'b']));",
    "test('words drops empty runs', () => assert.deepStrictEqual(words('  a  '), ['a']));",
    '',
  ].join('\n'),
  'ISSUE.md': 'add(2, 3) returns -1: it should return 5.\n',
};

/** The project written and committed in a scratch directory (removeProjects removes it). */
export function tsFixRepo(): string {
  const repo = writeProject(TS_PROJECT);
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'],
  ])
    execFileSync('git', args, { cwd: repo });
  return repo;
}

/** The scripted model's file: read, a type-breaking edit (refused), the fix, the repro test, stop. */
export function tsFixModel(): string {
  const edit = (replace: string) => ({
    tool: 'edit_entity',
    args: { selector: 'src.math.add', search: 'return a - b;', replace },
  });
  const lines = [
    { tool: 'read_entity', args: { selector: 'src.math.add', body: true } },
    // A type error: tsc (TS2322) refuses it; the file is not written.
    edit('return String(a + b);'),
    edit('return a + b;'),
    { tool: 'run_test', args: { target: TS_TARGET } },
    { tool: 'stop', args: { reason: 'the repro test passes now' } },
  ];
  // In a directory of its own that removeProjects removes too.
  const script = lines.map((l) => JSON.stringify(JSON.stringify(l))).join('\n') + '\n';
  return join(writeProject({ 'model.jsonl': script }), 'model.jsonl');
}
