// How environment images are filed (runtime/env/floor/names.ts): by the tree's real path, or by a project
// name the caller gives for trees that are checkouts of one project (the evaluation's base commits).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envImageRef, projectId } from '../../runtime/env/floor/names.js';

describe('environment image names', () => {
  const a = mkdtempSync(join(tmpdir(), 'names-a-'));
  const b = mkdtempSync(join(tmpdir(), 'names-b-'));
  const key = 'ab12'.repeat(16);

  it("files a user's tree under its path: two trees, two projects", () => {
    expect(projectId(a)).not.toBe(projectId(b));
    expect(projectId(a)).toMatch(/^[0-9a-f]{12}$/);
    expect(envImageRef(a, key).ref).toBe(`piper-env-${projectId(a)}:${key.slice(0, 12)}`);
  });

  it('files trees the caller names as one project together, apart from any path', () => {
    expect(projectId(a, 'swebench:tkem/cachetools')).toBe(projectId(b, 'swebench:tkem/cachetools'));
    expect(envImageRef(a, key, 'swebench:tkem/cachetools').ref).toBe(
      envImageRef(b, key, 'swebench:tkem/cachetools').ref,
    );
    expect(projectId(a, 'swebench:tkem/cachetools')).not.toBe(projectId(a, 'swebench:pallets/itsdangerous'));
    expect(projectId(a, 'swebench:tkem/cachetools')).not.toBe(projectId(a));
  });
});
