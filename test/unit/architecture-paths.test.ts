// docs/architecture.md sends a newcomer to files and folders by name; a name left behind by a move
// sends them nowhere. Every repository path the page names in a code span must exist (built output,
// dist/, and the run's own state, .piper/, are not in the repository and are not checked).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const ROOT = packageRoot();
const PAGES = ['docs/architecture.md'];
const TOP = [
  'cli',
  'core',
  'policy',
  'primitives',
  'runtime',
  'eval',
  'bench',
  'test',
  'docs',
  'sandbox-images',
  'docker',
  'bin',
  'scripts',
];

/** The code spans of a page that name a path in the repository. */
function namedPaths(page: string): string[] {
  const spans = Array.from(readFileSync(join(ROOT, page), 'utf8').matchAll(/`([^`\n]+)`/g), (m) => m[1]!);
  const underTop = (s: string) => TOP.some((dir) => s === `${dir}/` || s.startsWith(`${dir}/`));
  // A bare file name is a root file only when it is a config file; `tool.ts` in a folder's row is relative.
  const rootFile = (s: string) =>
    /^([\w-]+\.config\.(js|mjs|ts)|tsconfig[\w.]*\.json|package(-lock)?\.json|knip\.jsonc)$/.test(s);
  return [...new Set(spans.filter((s) => /^[\w./-]+$/.test(s) && (underTop(s) || rootFile(s))))];
}

describe('the architecture page names files that exist', () => {
  for (const page of PAGES) {
    it(`${page}: every named path is in the repository`, () => {
      const named = namedPaths(page);
      expect(named.length).toBeGreaterThan(20);
      expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
    });
  }
});
