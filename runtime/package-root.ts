// Where piper-agent's own files live (sandbox-images/, test fixtures), found from this module's
// location so it works from sources (vitest) and from dist/ alike.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'sandbox-images'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('piper-agent: cannot find the package root');
    dir = parent;
  }
  cached = dir;
  return dir;
}
