import { afterAll, describe, expect, it } from 'vitest';
import { addedDiagnostics, describeDiagnostic, type Diagnostic } from '../../primitives/lint/diagnostic.js';
import { LintGate } from '../../primitives/lint/lint-gate.js';

const gate = new LintGate();
afterAll(() => gate.close());

describe('LintGate.check', () => {
  it('smoke', async () => {
    console.log(JSON.stringify(await gate.check('def f():\n    return x\nnonlocal q\n', 'a.py')));
    console.log(JSON.stringify(await gate.check('def f(:\n  pass\n', 'a.py')));
    const g2 = new LintGate({ python: 'no-such-python' });
    console.log(JSON.stringify(await g2.check('x = y\n', 'a.py')));
    console.log(JSON.stringify(await g2.check('x = y\n', 'a.py')));
    expect(1).toBe(1);
  });
});
void addedDiagnostics; void describeDiagnostic; export type { Diagnostic };
