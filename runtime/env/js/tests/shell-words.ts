// A command line read as text, the way a shell would split it, without running it: its steps (split
// at `&&`, `||` and `;` outside quotes, each step's text kept as written, pipes and all) and the
// words of a step (quotes removed). A line this reader does not understand well (a subshell, a
// here-document) is still split conservatively: a step is never invented, only kept as written.

/** The steps of `line`, each trimmed text as written; separators outside quotes only. */
export function splitSteps(line: string): string[] {
  const steps: string[] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quote) {
      if (char === '\\' && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === '\\') i++;
    else if (char === '"' || char === "'") quote = char;
    else if (char === ';' || ((char === '&' || char === '|') && line[i + 1] === char)) {
      steps.push(line.slice(start, i));
      if (char !== ';') i++;
      start = i + 1;
    }
  }
  steps.push(line.slice(start));
  return steps.map((s) => s.trim()).filter((s) => s !== '');
}

/** The words of one step, quotes removed (`"a b"` is one word). */
export function words(step: string): string[] {
  const out: string[] = [];
  for (const found of step.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g))
    out.push(found[1] ?? found[2] ?? found[3] ?? '');
  return out;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * The words from the program the step starts on: variable assignments, `cross-env`, `env`, `npx`,
 * `pnpm exec` / `yarn exec` left out with their options. Wrappers (c8, nyc) stay: which runner they
 * start is runner-kind.ts's question.
 */
export function innerWords(step: string): string[] {
  let rest = words(step);
  for (let guard = 0; guard < 16 && rest.length; guard++) {
    const [head = '', ...tail] = rest;
    if (ASSIGNMENT.test(head)) rest = tail;
    else if (PREFIXES.has(head)) rest = skipOptions(tail);
    else if ((head === 'pnpm' || head === 'yarn' || head === 'npm') && tail[0] === 'exec')
      rest = skipOptions(tail.slice(1));
    else break;
  }
  return rest;
}

const PREFIXES = new Set(['cross-env', 'cross-env-shell', 'env', 'npx', 'time', 'dotenv', 'exec']);

function skipOptions(rest: string[]): string[] {
  let at = 0;
  while (at < rest.length && (rest[at]!.startsWith('-') || ASSIGNMENT.test(rest[at]!))) {
    if (rest[at] === '--') return rest.slice(at + 1);
    at++;
  }
  return rest.slice(at);
}

/**
 * A step's text without the launcher that only finds a local program (`npx jest` → `jest`,
 * `pnpm exec vitest run` → `vitest run`): the sandbox puts node_modules/.bin on PATH and may have no
 * package manager. Options that name another package to fetch (`npx -p x`) keep the step as written.
 */
export function withoutLauncher(step: string): string {
  const m =
    /^((?:[A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S*)\s+)*)(?:npx|(?:pnpm|yarn|npm)\s+exec)\s+((?:--?[\w-]+\s+)*)(?=[^-\s])/.exec(
      step,
    );
  if (!m || /(?:^|\s)(?:-p|--package|--call|-c)\s/.test(` ${m[2]}`)) return step;
  return `${m[1]}${step.slice(m[0].length)}`;
}
