// Poetry's version constraints as PEP 440 specifiers, following poetry-core's rules:
// `^1.2.3` → `>=1.2.3,<2.0.0` (the left-most non-zero part may not change: `^0.2.3` → `<0.3.0`,
// `^0.0.3` → `<0.0.4`); `~1.2.3` → `>=1.2.3,<1.3.0` (`~1` → `<2`); `*` or '' → no specifier;
// a bare or `=` version is `==`; `>=1.2 <2` (space or comma) is an AND. An OR (`||`, `|`) has no
// PEP 440 form: null, and the caller says so.

/** Release parts of the version (`1.2.3b1` → [1,2,3]) and the rest. */
function parts(version: string): { release: number[]; rest: string } | null {
  const found = /^v?(\d+(?:\.\d+)*)(.*)$/.exec(version);
  if (!found?.[1]) return null;
  return { release: found[1].split('.').map(Number), rest: found[2] ?? '' };
}

function bump(release: number[], index: number, length: number): string {
  const upper = release.slice(0, index + 1);
  upper[index] = (upper[index] ?? 0) + 1;
  while (upper.length < length) upper.push(0);
  return upper.join('.');
}

function caret(version: string): string | null {
  const parsed = parts(version);
  if (!parsed) return null;
  const [major = 0, minor = 0] = parsed.release;
  const length = Math.max(parsed.release.length, 1);
  let index = 2;
  if (parsed.release.length === 1 || major > 0) index = 0;
  else if (parsed.release.length === 2 || minor > 0) index = 1;
  return `>=${version},<${bump(parsed.release, index, Math.max(length, index + 1))}`;
}

function tilde(version: string): string | null {
  const parsed = parts(version);
  if (!parsed) return null;
  const index = parsed.release.length === 1 ? 0 : 1;
  return `>=${version},<${bump(parsed.release, index, Math.max(parsed.release.length, index + 1))}`;
}

function single(constraint: string): string | null {
  if (constraint === '*' || constraint === '') return '';
  const found = /^(\^|~=|~|===|==|=|!=|>=|<=|>|<)?\s*(\S+)$/.exec(constraint);
  if (!found?.[2]) return null;
  const [, op = '', version] = found;
  if (version === '*') return op === '' || op === '==' || op === '=' ? '' : null;
  if (op === '^') return caret(version);
  if (op === '~') return tilde(version);
  if (op === '' || op === '=') return `==${version}`;
  return `${op}${version}`;
}

/** The PEP 440 specifier of a Poetry constraint ('' for any version), or null when it has none. */
export function poetryToPep440(constraint: string): string | null {
  const text = constraint.trim();
  if (text.includes('|')) return null;
  // `>= 1.2, < 2` and `>=1.2 <2`: join an operator to its version, then split on commas and spaces.
  const joined = text.replace(/(\^|~=|~|===|==|=|!=|>=|<=|>|<)\s+/g, '$1');
  const out: string[] = [];
  for (const piece of joined.split(/[\s,]+/).filter((p) => p !== '')) {
    const spec = single(piece);
    if (spec === null) return null;
    if (spec !== '') out.push(spec);
  }
  return out.join(',');
}

/** A Poetry `python = "..."` constraint as a PEP 508 marker ('' for any Python), or null. */
export function poetryPythonMarker(constraint: string): string | null {
  const spec = poetryToPep440(constraint);
  if (spec === null) return null;
  return spec
    .split(',')
    .filter((s) => s !== '')
    .map((s) => {
      const [, op = '', version = ''] = /^(~=|===|==|!=|>=|<=|>|<)(.*)$/.exec(s) ?? [];
      const variable = version.split('.').length > 2 ? 'python_full_version' : 'python_version';
      return `${variable} ${op} "${version}"`;
    })
    .join(' and ');
}
