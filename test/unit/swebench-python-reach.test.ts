// An instance whose harness spec names a Python no reachable source carries is kept out of the
// valid count with one line naming it (eval/swebench/python-reach.ts); one the sandbox has, or one
// with no spec, goes on to be built.
import { describe, expect, it } from 'vitest';
import { unreachablePython } from '../../eval/swebench/python-reach.js';
import type { SweInstance } from '../../eval/swebench/instance-file.js';

const instance = (repo: string, version?: string) =>
  ({ instance_id: 'x-1', repo, base_commit: 'abcdef1', version }) as unknown as SweInstance;

describe('unreachablePython', () => {
  it("names a spec's Python the sandbox lacks, in one line", () => {
    expect(unreachablePython(instance('astropy/astropy', '0.1'))).toBe(
      "needs Python 3.6 (the SWE-bench harness's spec for astropy/astropy 0.1), which no reachable source carries (the sandbox has 3.13, 3.11, 3.9)",
    );
    expect(unreachablePython(instance('astropy/astropy', 'v5.3'))).toContain('needs Python 3.10');
  });

  it('lets through a Python the sandbox has, and an instance without a spec', () => {
    expect(unreachablePython(instance('astropy/astropy', '3.0'))).toBeNull();
    expect(unreachablePython(instance('astropy/astropy'))).toBeNull();
    expect(unreachablePython(instance('nobody/nothing', '1.0'))).toBeNull();
  });
});
