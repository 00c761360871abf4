// The two kinds of harness pre-install line that say something a recipe can hold, read as text and
// never run: `apt-get install -y NAMES` (Debian package names) and `sed -i 's/OLD/NEW/' FILE` on a
// declaration file where NEW is a requirement, or adds quoted requirements OLD did not have.

const APT_NAME = /^[a-z0-9][a-z0-9+.-]+$/;
const DECLARATIONS = new Set(['setup.py', 'setup.cfg', 'pyproject.toml']);

/** The package names of an `apt-get install` line (with or without `apt-get update &&`), or null. */
export function aptPackages(line: string): string[] | null {
  const m = /(?:^|&&\s*)apt-get\s+install\s+(.+)$/.exec(line.trim());
  if (!m) return null;
  const words = m[1]!.split(/\s+/).filter((w) => !w.startsWith('-'));
  return words.length && words.every((w) => APT_NAME.test(w)) ? words : null;
}

interface Substitution {
  old: string;
  replacement: string;
  file: string;
}

/** `sed -i 's/A/B/' FILE` (single or double quotes), its `\` escapes undone. */
function substitutions(line: string): Substitution[] {
  const found: Substitution[] = [];
  const sed =
    /sed\s+-i\s+(?:'s\/((?:\\.|[^/'])*)\/((?:\\.|[^/'])*)\/g?'|"s\/((?:\\.|[^/"])*)\/((?:\\.|[^/"])*)\/g?")\s+(\S+)/g;
  for (const m of line.matchAll(sed)) {
    const unescape = (s: string) => s.replace(/\\(.)/g, '$1');
    found.push({ old: unescape(m[1] ?? m[3]!), replacement: unescape(m[2] ?? m[4]!), file: m[5]! });
  }
  return found;
}

/**
 * The requirements a `sed` pre-install line writes into a declaration file, or null when it writes
 * none. Of `A && sed ... || sed ...`, only the last alternative: it is the one that applies to any text.
 */
export function sedRequirements(line: string): string[] | null {
  const last = line.split('||').at(-1)!;
  const out: string[] = [];
  for (const { old, replacement, file } of substitutions(last)) {
    if (!DECLARATIONS.has(file)) return null;
    const quoted = [...replacement.matchAll(/['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    if (quoted.length) out.push(...quoted.filter((q) => !old.includes(q)));
    else out.push(replacement.trim());
  }
  return out.length ? out : null;
}
