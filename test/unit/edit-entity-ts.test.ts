// edit_entity on a TypeScript repository: the real code index in its TypeScript grammars, the
// JavaScript/TypeScript lint gate (tree-sitter's syntax findings, and the project's own tsc through
// a runner on the host: the repository's own TypeScript devDependency, a real compiler), real files
// in a temp directory and a real SQLite ledger.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../primitives/index/code-index.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';
import type { TscRunner } from '../../primitives/lint/tsc-check.js';
import { editEntity } from '../../primitives/tools/edit-entity/effect.js';
import { editRoundTrip } from '../../primitives/tools/edit-entity/round-trip.js';
import { Ledger } from '../../runtime/ledger/ledger.js';
import { packageRoot } from '../../runtime/package-root.js';

const MATH_TS = `/** Small arithmetic. */
export class Calc {
  private total = 0;

  /** Adds two numbers. */
  add(a: number, b: number): number {
    const sum = a + b;
    this.total += sum;
    return sum;
  }

  get last(): number {
    return this.total;
  }
}

export const double = (x: number): number => x * 2;
`;

const BROKEN_TS = `export function fine(a: number): number {
  return a + 1;
}

export function broken(a: number): number {
  return a +;
}
`;

const TYPED_TS = `export function label(n: number): string {
  return String(n);
}

export const wrong: number = 'old';
`;

const temps: string[] = [];
const ledgers: Ledger[] = [];
afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'piper-edit-ts-'));
  temps.push(dir);
  return dir;
}

function projectWith(files: Record<string, string>): string {
  const root = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function contextFor(root: string, lint: LintGate) {
  const ledger = Ledger.open(join(tempDir(), 'ledger.db'));
  ledgers.push(ledger);
  const index = await CodeIndex.open(root, ledger, { language: 'javascript', threads: 1 });
  return { index, ctx: { repoRoot: root, index, ledger, lint } };
}

/**
 * tsc on the host: a copy of the project's sources with `path` holding `text`, the TypeScript of
 * this repository linked in as the project's node_modules, so the copy checks what the edit would make.
 */
function hostTsc(project: string): TscRunner {
  return async ({ path, text, timeoutMs }) => {
    const copy = tempDir();
    cpSync(project, copy, { recursive: true });
    writeFileSync(join(copy, path), text);
    mkdirSync(join(copy, 'node_modules'), { recursive: true });
    symlinkSync(join(packageRoot(), 'node_modules', 'typescript'), join(copy, 'node_modules', 'typescript'));
    const tsc = join(copy, 'node_modules', 'typescript', 'bin', 'tsc');
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [tsc, '--noEmit', '--pretty', 'false', '-p', 'tsconfig.json'],
        { cwd: copy, timeout: timeoutMs },
        (error, stdout, stderr) => {
          if (error && error.killed) resolve({ ran: false, reason: `over its ${timeoutMs} ms budget` });
          else
            resolve({
              ran: true,
              exitCode: typeof error?.code === 'number' ? error.code : 0,
              output: stdout + stderr,
            });
        },
      );
    });
  };
}

const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', skipLibCheck: true },
  include: ['src'],
});

describe('edit_entity on TypeScript, syntax gate', () => {
  it('edits a method: committed, clean, the diff round-trips and the index sees the new body', async () => {
    const root = projectWith({ 'src/math.ts': MATH_TS });
    const { index, ctx } = await contextFor(root, new LintGate({ language: 'javascript' }));
    const args = {
      selector: 'src.math.Calc.add',
      search: 'const sum = a + b;',
      replace: 'const sum = a + b + 0;',
    };
    const result = await editEntity(ctx, args);
    expect(result).toMatchObject({ ok: true, error: null, data: { committed: true, lint_clean: true } });
    expect(editRoundTrip(args.search, args.replace, result.data!.diff)).toBeNull();
    expect(readFileSync(join(root, 'src/math.ts'), 'utf8')).toContain('    const sum = a + b + 0;\n');
    const add = index.get('src.math.Calc.add')!;
    expect([add.startLine, add.endLine]).toEqual([6, 10]);
    expect(index.get('src.math.Calc.last')).toBeDefined();
  });

  it('refuses an edit that adds a syntax error; the file stays as it was', async () => {
    const root = projectWith({ 'src/math.ts': MATH_TS });
    const { ctx } = await contextFor(root, new LintGate({ language: 'javascript' }));
    const result = await editEntity(ctx, { selector: 'src.math.double', search: 'x * 2', replace: 'x * (2' });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^edit refused by the lint gate: \d+ new diagnostic\(s\): /);
    expect(result.data).toMatchObject({ committed: false, lint_clean: false });
    expect(readFileSync(join(root, 'src/math.ts'), 'utf8')).toBe(MATH_TS);
  });

  it('lets a syntax error the file already had stand: an edit elsewhere commits, not clean', async () => {
    const root = projectWith({ 'src/parts.ts': BROKEN_TS });
    const { ctx } = await contextFor(root, new LintGate({ language: 'javascript' }));
    const result = await editEntity(ctx, { selector: 'src.parts.fine', search: 'a + 1', replace: 'a + 2' });
    expect(result).toMatchObject({ ok: true, data: { committed: true, lint_clean: false } });
  });
});

describe('edit_entity on TypeScript, with the project tsc', () => {
  it('refuses an edit that adds a type error, and lets the one the project had stand', async () => {
    const root = projectWith({ 'tsconfig.json': TSCONFIG, 'src/typed.ts': TYPED_TS });
    const lint = new LintGate({ language: 'javascript', typeCheck: hostTsc(root) });
    const { ctx } = await contextFor(root, lint);
    const refused = await editEntity(ctx, {
      selector: 'src.typed.label',
      search: 'return String(n);',
      replace: 'return n;',
    });
    expect(refused.ok).toBe(false);
    expect(refused.data?.new_diagnostics).toEqual([
      { code: 'TS2322', message: "Type 'number' is not assignable to type 'string'.", line: 2, column: 3 },
    ]);
    const allowed = await editEntity(ctx, {
      selector: 'src.typed.label',
      search: 'return String(n);',
      replace: 'return String(n + 1);',
    });
    expect(allowed).toMatchObject({ ok: true, data: { committed: true, lint_clean: false } });
  }, 60_000);
});
