// Reading the import check's output (runtime/env/build/import-check.ts): untrusted text, so a
// line that does not parse is dropped; and the `broken` shortfall it becomes, one per distribution.
import { describe, expect, it } from 'vitest';
import { brokenShortfalls, parseImportCheck } from '../../runtime/env/build/import-check.js';
import { shortfallLine } from '../../runtime/env/build/shortfall.js';
import type { PlannedRequirement } from '../../runtime/env/plan/types.js';

const cartopy = {
  name: 'Cartopy',
  normalized: 'cartopy',
  specifier: '>=0.24',
  line: 'cartopy>=0.24',
  from: 'pyproject.toml [project.optional-dependencies] viz',
  optional: false,
} as PlannedRequirement;

describe('parseImportCheck', () => {
  it('reads the broken lines and drops garbage', () => {
    const out = [
      'piper-import-broken Cartopy cartopy hidden "DataDirError: Valid PROJ data directory not found."',
      'piper-import-broken numpy numpy kept "ValueError: x"',
      'piper-import-broken bad name; rm -rf / hidden "x"',
      'piper-import-broken a b hidden not-json',
      'piper-import-broken a b hidden 12',
      'piper-import-slow pandas pandas',
      'anything else',
    ].join('\n');
    expect(parseImportCheck(out)).toEqual([
      {
        dist: 'cartopy',
        module: 'cartopy',
        hidden: true,
        why: 'DataDirError: Valid PROJ data directory not found.',
      },
      { dist: 'numpy', module: 'numpy', hidden: false, why: 'ValueError: x' },
    ]);
  });

  it('reads a hostile line of 1 MiB in linear time', () => {
    const t0 = performance.now();
    parseImportCheck(`piper-import-broken a b hidden "${'\\"'.repeat(500_000)}`);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('brokenShortfalls', () => {
  it('makes one broken shortfall a distribution, saying what was hidden', () => {
    const broken = parseImportCheck(
      'piper-import-broken Cartopy cartopy hidden "DataDirError: Valid PROJ data directory not found."',
    );
    const [s] = brokenShortfalls([cartopy], broken, new Map([['cartopy', '0.24.1']]), () => 'debian');
    expect(shortfallLine(s!)).toBe(
      'broken: Cartopy 0.24.1 (debian; import cartopy: DataDirError: Valid PROJ data directory not found.; hidden: the tests see it as absent)',
    );
  });
});
