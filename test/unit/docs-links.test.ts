// The documentation's shape: the README fits on a page and sends everything else to docs/,
// docs/README.md indexes every page there, and no relative link in the project's markdown points at a
// file or a heading that does not exist (pages move; a link left behind is a fact lost).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../runtime/package-root.js';

const ROOT = packageRoot();
const DOCS = join(ROOT, 'docs');
const docPages = readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'README.md');
const CHECKED = [
  'README.md',
  'bench/README.md',
  'eval/tasks/piperbench/README.md',
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks: a `#` line in a shell block is no heading. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const headings = prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+?) *#*$/gm);
  return new Set(Array.from(headings, (m) => slug(m[1]!)));
}

/** Every relative link of a page, as [target file, anchor or ''], skipping URLs. */
function relativeLinks(page: string): Array<[string, string]> {
  const text = prose(readFileSync(join(ROOT, page), 'utf8')).replace(/`[^`\n]*`/g, '');
  const targets = Array.from(text.matchAll(/\]\(([^)\s]+)\)/g), (m) => m[1]!);
  return targets
    .filter((t) => !/^[a-z]+:/i.test(t))
    .map((t) => {
      const [path, anchor = ''] = t.split('#') as [string, string?];
      return [path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path), anchor];
    });
}

describe('the documentation', () => {
  it('keeps the README to at most 200 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it('indexes every page under docs/ in docs/README.md', () => {
    const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
    expect(docPages.length).toBeGreaterThan(10);
    for (const page of docPages) expect(index, page).toContain(`](${page})`);
  });

  it('has no relative link to a missing file or heading', () => {
    const broken: string[] = [];
    for (const page of CHECKED) {
      for (const [target, anchor] of relativeLinks(page)) {
        const shown = `${page} → ${relative(ROOT, target)}${anchor ? `#${anchor}` : ''}`;
        if (!existsSync(target)) broken.push(`${shown} (no such file)`);
        else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor))
          broken.push(`${shown} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
