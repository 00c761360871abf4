// Workspace patterns (package.json `workspaces`, pnpm-workspace.yaml `packages`) matched against the
// repository listing: a workspace is a directory whose package.json the listing holds and that a
// pattern names (`packages/*`, `apps/**`, `{a,b}`), no `!` pattern excluding it. Patterns are
// translated to anchored regular expressions here, never handed to a shell or a glob library that
// walks the disk: the listing already left node_modules, .git and build output out.

/** A pattern with more `**` than this is not a workspace list: refused (it could backtrack). */
const MAX_GLOBSTARS = 3;
/** Patterns read at most. */
const MAX_PATTERNS = 200;

function escape(char: string): string {
  return /[\\^$.|+()[\]{}]/.test(char) ? `\\${char}` : char;
}

/** The regular expression of one pattern (without its `!`), or null for one too long to be a pattern. */
function patternRegex(pattern: string): RegExp | null {
  // `**/**/` is `**/`: repeated, it would only make the expression backtrack.
  const clean = pattern
    .replace(/^\.\/+/, '')
    .replace(/\/+$/, '')
    .replace(/(?:\*\*\/)+/g, '**/');
  if (clean.length > 256 || (clean.match(/\*\*/g) ?? []).length > MAX_GLOBSTARS) return null;
  let out = '';
  let braces = 0;
  for (let i = 0; i < clean.length; i++) {
    const char = clean[i]!;
    if (char === '*' && clean[i + 1] === '*') {
      const slash = clean[i + 2] === '/';
      out += slash ? '(?:[^/]+/)*' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '{') {
      braces++;
      out += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (char === ',' && braces > 0) out += '|';
    else out += escape(char);
  }
  if (braces > 0) return null;
  // `packages/**` names `packages` itself too, as the managers read it.
  if (out.endsWith('/.*')) out = `${out.slice(0, -3)}(?:/.*)?`;
  return new RegExp(`^${out === '' || out === '.' ? '' : out}$`);
}

/**
 * The workspace directories (repo-relative, sorted) `patterns` name among the directories holding a
 * package.json in `paths`; the root itself is never one of them.
 */
export function matchWorkspaces(patterns: readonly string[], paths: readonly string[]): string[] {
  const include: RegExp[] = [];
  const exclude: RegExp[] = [];
  for (const raw of patterns.slice(0, MAX_PATTERNS)) {
    const negated = raw.startsWith('!');
    const regex = patternRegex(negated ? raw.slice(1) : raw);
    if (regex) (negated ? exclude : include).push(regex);
  }
  const dirs = paths
    .filter((p) => p.endsWith('/package.json'))
    .map((p) => p.slice(0, -'/package.json'.length));
  return dirs.filter((dir) => include.some((r) => r.test(dir)) && !exclude.some((r) => r.test(dir))).sort();
}
