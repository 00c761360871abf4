// The syntax half of the TypeScript/JavaScript lint gate: tree-sitter's ERROR and MISSING nodes as
// findings, on real snippets of each grammar.
import { describe, expect, it } from 'vitest';
import { scriptSyntaxDiagnostics } from '../../primitives/lint/script-syntax.js';

describe('tree-sitter syntax findings', () => {
  it('finds nothing in valid TypeScript, TSX and JavaScript', async () => {
    expect(await scriptSyntaxDiagnostics('class A { m(): number { return 1; } }\n', 'a.ts')).toEqual([]);
    expect(await scriptSyntaxDiagnostics('export const A = () => <div a={1}>{x}</div>;\n', 'a.tsx')).toEqual(
      [],
    );
    expect(await scriptSyntaxDiagnostics('const a = <b>{c}</b>;\nmodule.exports = a;\n', 'a.jsx')).toEqual(
      [],
    );
    expect(await scriptSyntaxDiagnostics('const b = <T,>(x: T) => x;\n', 'b.ts')).toEqual([]);
  });

  it('finds what does not parse, with its position', async () => {
    const found = await scriptSyntaxDiagnostics('export function f() {\n  return 1 +;\n}\n', 'a.ts');
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatchObject({ line: 2 });
    const missing = await scriptSyntaxDiagnostics('if (x) { y()\n', 'a.js');
    expect(missing.map((d) => d.message)).toContain('missing `}`');
  });

  it('reads TypeScript syntax as an error only in a JavaScript file', async () => {
    expect(await scriptSyntaxDiagnostics('let x: number = 1;\n', 'a.ts')).toEqual([]);
    expect((await scriptSyntaxDiagnostics('let x: number = 1;\n', 'a.js')).length).toBeGreaterThan(0);
  });
});
