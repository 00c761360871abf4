// Best effort's choice when no source has a version that meets a specifier: the version a source
// does have that is nearest to the one asked for. Nearest means: the longest shared prefix of the
// release numbers (8.4.2 wanted: 8.4.0 before 8.3.5 before 9.0.1), then the smallest gap at the
// first number that differs, then the higher version. Pre-releases count only when nothing else does.
import { explain, valid } from '@renovatebot/pep440';
import { boundedVersion } from '../../plan/read/version-bounds.js';

/** The version a specifier is about: its `==`/`~=`/`>=`/`>`/`<=`/`<` operand, first found. */
function targetVersion(specifier: string): string | null {
  for (const op of ['===', '==', '~=', '>=', '>', '<=', '<', '!=']) {
    const m = new RegExp(`(?:^|,)\\s*${op.replace(/([=~<>!])/g, '\\$1')}\\s*([0-9][^,\\s]*)`).exec(specifier);
    if (m?.[1]) return m[1].replace(/\.\*$/, '');
  }
  return null;
}

function release(version: string): number[] {
  return explain(version)?.release ?? [];
}

export function nearestVersion(specifier: string, available: readonly string[]): string | null {
  const candidates = available.filter((v) => boundedVersion(v) && valid(v));
  const finals = candidates.filter((v) => !explain(v)?.is_prerelease);
  const pool = finals.length ? finals : candidates;
  if (!pool.length) return null;
  const target = targetVersion(specifier);
  if (!target || !valid(target)) return pool.reduce((a, b) => (higher(a, b) ? a : b));
  const want = release(target);
  const score = (v: string): [number, number] => {
    const have = release(v);
    let shared = 0;
    while (shared < want.length && have[shared] === want[shared]) shared++;
    const gap = Math.abs((have[shared] ?? 0) - (want[shared] ?? 0));
    return [shared, gap];
  };
  return pool.reduce((best, v) => {
    const [s1, g1] = score(best);
    const [s2, g2] = score(v);
    if (s2 !== s1) return s2 > s1 ? v : best;
    if (g2 !== g1) return g2 < g1 ? v : best;
    return higher(v, best) ? v : best;
  });
}

function higher(a: string, b: string): boolean {
  const ra = release(a);
  const rb = release(b);
  for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
    if ((ra[i] ?? 0) !== (rb[i] ?? 0)) return (ra[i] ?? 0) > (rb[i] ?? 0);
  }
  return false;
}
