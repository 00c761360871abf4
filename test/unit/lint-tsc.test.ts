// Reading tsc's output into the gate's findings, and a run that did not answer.
import { describe, expect, it } from 'vitest';
import { parseTscOutput, typeCheck } from '../../primitives/lint/tsc-check.js';

const OUTPUT = `src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.
src/b.ts(10,1): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.
  Type 'number' is not assignable to type 'string'.
error TS5083: Cannot read file '/p/tsconfig.base.json'.
`;

describe('tsc output', () => {
  it('reads located, continued and global findings; another file is named in the message', () => {
    expect(parseTscOutput(OUTPUT, 'src/a.ts')).toEqual([
      { code: 'TS2322', message: "Type 'string' is not assignable to type 'number'.", line: 3, column: 7 },
      {
        code: 'TS2345',
        message:
          "[src/b.ts] Argument of type 'number' is not assignable to parameter of type 'string'. Type 'number' is not assignable to type 'string'.",
        line: 10,
        column: 1,
      },
      { code: 'TS5083', message: "Cannot read file '/p/tsconfig.base.json'.", line: 0, column: 0 },
    ]);
  });

  it('says why types were not checked: over budget, or a crash with no findings', async () => {
    expect(
      await typeCheck(async () => ({ ran: false, reason: 'over its 10 ms budget' }), 'a.ts', ''),
    ).toEqual({
      ran: false,
      reason: 'types not checked: over its 10 ms budget',
    });
    const crashed = await typeCheck(
      async () => ({ ran: true, exitCode: 1, output: 'TypeError: x\n' }),
      'a.ts',
      '',
    );
    expect(crashed).toEqual({ ran: false, reason: 'types not checked: tsc exited 1 (TypeError: x)' });
    expect(await typeCheck(async () => ({ ran: true, exitCode: 0, output: '' }), 'a.ts', '')).toEqual({
      ran: true,
      diagnostics: [],
    });
  });
});
