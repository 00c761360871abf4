// `fix` on a small TypeScript project, through the real CLI, engine, npm registry and Node: the
// repository is read as JavaScript/TypeScript (its index, gate, environment and runner), a scripted
// model's edit that breaks a type is refused by the project's own tsc, the corrected edit lands,
// and the repro test (node:test, run by the environment's Node with types stripped) passes in the
// sandbox: the run ends resolved, exit 0, its verdict read from node:test's own output.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../policy/events.js';
import { runCli } from '../helpers/cli.js';
import { registryUnreachable, removeProjects, writeProject } from '../helpers/js-env.js';

const skip = await registryUnreachable();
afterAll(removeProjects);

const TARGET = 'test/math.test.ts';
const PROJECT = {
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
  'src/math.ts': [
    '/** The sum of two numbers. */',
    'export function add(a: number, b: number): number {',
    '  return a - b;',
    '}',
    '',
  ].join('\n'),
  [TARGET]: [
    "import { test } from 'node:test';",
    "import assert from 'node:assert';",
    "import { add } from '../src/math.ts';",
    '',
    "test('add sums', () => assert.strictEqual(add(2, 3), 5));",
    '',
  ].join('\n'),
  'ISSUE.md': 'add(2, 3) returns -1: it should return 5.\n',
};

function scriptModel(): string {
  const edit = (replace: string) => ({
    tool: 'edit_entity',
    args: { selector: 'src.math.add', search: 'return a - b;', replace },
  });
  const lines = [
    { tool: 'read_entity', args: { selector: 'src.math.add', body: true } },
    // A type error: tsc (TS2322) refuses it; the file is not written.
    edit('return String(a + b);'),
    edit('return a + b;'),
    { tool: 'run_test', args: { target: TARGET } },
    { tool: 'stop', args: { reason: 'the repro test passes now' } },
  ];
  const path = join(mkdtempSync(join(tmpdir(), 'piper-ts-fix-')), 'model.jsonl');
  writeFileSync(path, lines.map((l) => JSON.stringify(JSON.stringify(l))).join('\n') + '\n');
  return path;
}

describe.skipIf(skip !== null)(`fix on a TypeScript project (${skip ?? 'registry answers'})`, () => {
  it('a type-breaking edit is refused by tsc, the fix lands, the node:test repro passes: resolved', async () => {
    const repo = writeProject(PROJECT);
    for (const args of [
      ['init', '-q'],
      ['add', '-A'],
      ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'],
    ])
      execFileSync('git', args, { cwd: repo });
    const r = await runCli([
      'fix',
      '--repo',
      repo,
      '--model',
      `script:${scriptModel()}`,
      '--test',
      TARGET,
      '--non-interactive',
      '--output',
      'stream-json',
      join(repo, 'ISSUE.md'),
    ]);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
    const result = events.at(-1) as unknown as RunResult;
    const observations = JSON.stringify(events.filter((e) => e.type === 'observation'));
    expect(observations).toContain('TS2322');
    expect(result.outcome, r.stderr.slice(-3000)).toBe('resolved');
    expect(r.code).toBe(0);
    expect(result.diff).toContain('+  return a + b;');
    expect(result.diff).not.toContain('String(');
  }, 1_200_000);
});
