// The lint gate: ruff E9 + F (WASM, in process) and python3's compile() through one long-lived
// interpreter, and the rule that only findings an edit ADDS block it. These run the compile server
// on the host's python3 (no engine); that the gate compiles with the sandbox's own Python by
// default is test/integration/lint-sandbox-python.test.ts.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addedDiagnostics, describeDiagnostic, type Diagnostic } from '../../primitives/lint/diagnostic.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';

const gate = new LintGate({ python: 'python3' });
afterAll(() => gate.close());

/** A stand-in interpreter: a shell script run in python3's place. */
function fakePython(body: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'piper-fake-python-')), 'python3');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('LintGate.check', () => {
  it('reports ruff findings with 1-based lines and code-point columns', async () => {
    const report = await gate.check('import os\ns = "é✓"; print(zz)\n');
    expect(report).toEqual({
      diagnostics: [
        { code: 'F401', message: '`os` imported but unused', line: 1, column: 8 },
        { code: 'F821', message: 'Undefined name `zz`', line: 2, column: 17 },
      ],
      compileCheck: { ran: true },
    });
  });

  it("adds what only CPython's compiler sees, as E999", async () => {
    const report = await gate.check('def f():\n    def g():\n        nonlocal zz\n', 'mod.py');
    expect(report.diagnostics).toEqual([
      { code: 'E999', message: "SyntaxError: no binding for nonlocal 'zz' found", line: 3, column: 9 },
    ]);
  });

  it('reports a syntax error from both ruff and compile()', async () => {
    const report = await gate.check('def f(:\n    pass\n');
    expect(report.diagnostics.map((d) => d.code)).toEqual(['invalid-syntax', 'E999', 'invalid-syntax']);
    expect(report.diagnostics[1]).toEqual({
      code: 'E999',
      message: 'SyntaxError: invalid syntax',
      line: 1,
      column: 7,
    });
  });

  it("is clean on clean code, and ruff judges syntax as the sandbox's Python 3.13", async () => {
    expect((await gate.check('match x := 1:\n    case 1:\n        pass\n')).diagnostics).toEqual([]);
    expect((await gate.check('\uFEFFx = 1\r\n', 'bom.py')).diagnostics).toEqual([]); // BOM + CRLF, as Python reads files
    const ruffOnly = new LintGate({ python: join(tmpdir(), 'no-such-dir', 'python3') });
    const pep695 = await ruffOnly.check(
      'type Pair = tuple[int, int]\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n',
    );
    expect(pep695.diagnostics).toEqual([]);
    // PEP 758 (unparenthesized except) is 3.14 syntax.
    const pep758 = await ruffOnly.check('try:\n    pass\nexcept ValueError, TypeError:\n    pass\n');
    expect(pep758.diagnostics.find((d) => d.code === 'invalid-syntax')?.message).toMatch(/Python 3\.13/);
    await ruffOnly.close();
  });

  it('answers concurrent checks each with its own result', async () => {
    // Odd ones fail only in compile(), each with its own name: a mixed-up answer would show.
    const sources = Array.from({ length: 20 }, (_, i) =>
      i % 2 ? `def f():\n    nonlocal v${i}\n` : `x${i} = ${i}\n`,
    );
    const reports = await Promise.all(sources.map((s) => gate.check(s)));
    reports.forEach((report, i) => {
      expect(report.diagnostics).toEqual(
        i % 2
          ? [
              {
                code: 'E999',
                message: `SyntaxError: no binding for nonlocal 'v${i}' found`,
                line: 2,
                column: 5,
              },
            ]
          : [],
      );
    });
  });

  it('says so when python3 is missing, and still reports what ruff finds', async () => {
    const noPython = new LintGate({ python: join(tmpdir(), 'no-such-dir', 'python3') });
    const report = await noPython.check('x = y\ndef f():\n    def g():\n        nonlocal zz\n');
    expect(report.compileCheck).toEqual({
      ran: false,
      reason: expect.stringContaining("not found; compile check skipped, ruff's parser only"),
    });
    expect(report.diagnostics).toEqual([{ code: 'F821', message: 'Undefined name `y`', line: 1, column: 5 }]);
    await noPython.close();
  });

  it('kills an interpreter that does not answer in time, and says why', async () => {
    const hung = new LintGate({ python: fakePython('exec cat > /dev/null'), timeoutMs: 300 });
    const report = await hung.check('x = 1\n');
    expect(report.compileCheck).toEqual({
      ran: false,
      reason: expect.stringMatching(/took longer than 300 ms$/),
    });
    expect(report.diagnostics).toEqual([]);
    await hung.close();
  });

  it('reports an interpreter that dies, with its last stderr line', async () => {
    const dying = new LintGate({ python: fakePython('echo "boom: broken interpreter" >&2; exit 3') });
    const report = await dying.check('x = 1\n');
    expect(report.compileCheck).toEqual({
      ran: false,
      reason: expect.stringMatching(/exited \(code 3\): boom: broken interpreter$/),
    });
    await dying.close();
  });

  it('starts a new interpreter after close()', async () => {
    const own = new LintGate({ python: 'python3' });
    expect((await own.check('def f():\n    await g\n')).diagnostics.map((d) => d.code)).toContain('E999');
    await own.close();
    const again = await own.check('def f():\n    await h\n');
    expect(again.compileCheck).toEqual({ ran: true });
    expect(again.diagnostics.map((d) => d.code)).toContain('E999');
    await own.close();
  });

  it('checks a clean 300-line file clean each time its content changes (no cached verdict)', async () => {
    const body = Array.from({ length: 50 }, (_, i) =>
      [
        `def function_${i}(a, b):`,
        `    """Doc ${i}."""`,
        `    total = a + b * ${i}`,
        `    if total > ${i}:`,
        '        return total',
        '    return -total',
      ].join('\n'),
    ).join('\n');
    expect(body.split('\n')).toHaveLength(300);
    // Its timing is bench/'s business (bench/policy-overhead.ts); here, only the verdicts.
    for (let i = 0; i < 5; i++) {
      const report = await gate.check(`${body}\n# variant ${i}\n`, 'big.py');
      expect(report.diagnostics).toEqual([]);
    }
    const broken = await gate.check(`${body}\ndef broken(:\n`, 'big.py');
    expect(broken.diagnostics.length).toBeGreaterThan(0);
  });
});

describe('addedDiagnostics', () => {
  const d = (code: string, message: string, line: number): Diagnostic => ({ code, message, line, column: 1 });
  const all = { start: 1, end: 1000 };

  it('compares as multisets of code + message, ignoring positions', () => {
    const before = [d('F821', 'Undefined name `x`', 3), d('F821', 'Undefined name `x`', 9)];
    const after = [
      d('F821', 'Undefined name `x`', 4),
      d('F821', 'Undefined name `x`', 10),
      d('F821', 'Undefined name `x`', 12),
    ];
    expect(addedDiagnostics(before, after, all)).toEqual([d('F821', 'Undefined name `x`', 12)]);
    expect(addedDiagnostics(after, before, all)).toEqual([]); // fixing one is never blocked
  });

  it('blurs line numbers inside messages, so shifted lines are not new findings', () => {
    const before = [d('F811', 'Redefinition of unused `os` from line 1: `os` redefined here', 2)];
    const after = [d('F811', 'Redefinition of unused `os` from line 3: `os` redefined here', 4)];
    expect(addedDiagnostics(before, after, all)).toEqual([]);
  });

  it('when the old content did not parse, counts hidden-rule findings only inside the written lines', () => {
    const before = [d('invalid-syntax', 'Expected `)`', 4)];
    const after = [d('F401', '`os` imported but unused', 1), d('F821', 'Undefined name `q`', 5)];
    expect(addedDiagnostics(before, after, { start: 4, end: 5 })).toEqual([
      d('F821', 'Undefined name `q`', 5),
    ]);
    // A new syntax error counts wherever it is.
    expect(
      addedDiagnostics(before, [d('E999', 'SyntaxError: invalid syntax', 9)], { start: 4, end: 5 }),
    ).toHaveLength(1);
  });

  it('describes a finding for a refusal', () => {
    expect(describeDiagnostic(d('F821', 'Undefined name `x`', 3))).toBe('F821 Undefined name `x` (line 3)');
  });
});
