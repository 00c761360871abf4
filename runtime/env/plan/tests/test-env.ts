// The variables a project's test step sets (its CI workflow's `env:`, tox's `setenv`), as they may
// enter a sandbox: repository text, so checked here. A value that is an expression (`${{ secrets.X
// }}`, `${{ matrix.python }}`) is dropped — a secret never comes from the repository, and nothing
// is evaluated — and so is a name that is not a plain identifier or that would change the sandbox
// rather than the tests: where programs and libraries are found, how Python or the shell starts,
// the image's own settings, piper's. Every drop is a decision with its reason.
import { loadRecipe } from '../../../images/recipe.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A test variable's longest value: a setting, not a payload. */
const MAX_VALUE = 4096;

/** Names a test step may not set, and why (prefixes end with `*`). */
const REFUSED: Array<[string, string]> = [
  ['PATH', 'which programs run'],
  ['HOME', "the sandbox's home directory"],
  ['SHELL', 'the shell'],
  ['ENV', "the shell's start-up file"],
  ['BASH_ENV', "bash's start-up file"],
  ['IFS', "the shell's word splitting"],
  ['TMPDIR', 'where temporary files go (the tmpfs)'],
  ['PYTHONPATH', "Python's module search path"],
  ['PYTHONHOME', "Python's installation"],
  ['PYTHONSTARTUP', "Python's start-up file"],
  ['PYTHONUSERBASE', "Python's user site"],
  ['PYTHONNOUSERSITE', "Python's user site"],
  ['PYTHONSAFEPATH', "Python's module search path"],
  ['PYTHONPLATLIBDIR', "Python's module search path"],
  ['PYTHONEXECUTABLE', "Python's executable"],
  ['PYTHONINSPECT', 'an interactive prompt after the program'],
  ['PYTEST_ADDOPTS', "pytest's options (the image sets them)"],
  ['PYTEST_PLUGINS', 'plugins pytest loads before the tests'],
  ['LD_*', 'how the dynamic linker loads libraries'],
  ['GCONV_PATH', "glibc's module search path"],
  ['GIT_*', "git's configuration (the image sets it)"],
  ['PIPER_*', "piper's own settings"],
];

function refusal(name: string, imageEnv: ReadonlySet<string>): string | null {
  if (!NAME.test(name)) return 'not a plain variable name';
  for (const [pattern, why] of REFUSED) {
    const hit = pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
    if (hit) return `it would change ${why}`;
  }
  if (imageEnv.has(name)) return 'the sandbox image sets it';
  return null;
}

/** The names every refusal above covers, for the decision that lists them. */
export const REFUSED_NAMES = REFUSED.map(([name]) => name);

/**
 * The entries that may be set, in order; each dropped one is a decision naming `from`, the name
 * and the reason. Later entries override earlier ones (workflow < job < step).
 */
export function safeTestEnv(
  entries: Array<[string, string]>,
  from: string,
  decisions: string[],
): Record<string, string> {
  const imageEnv = new Set(loadRecipe().env.map((pair) => pair.slice(0, pair.indexOf('='))));
  const env: Record<string, string> = {};
  for (const [name, value] of entries) {
    const why = /\$\{\{/.test(value)
      ? 'its value is an expression (`${{ }}`): not evaluated, and secrets never come from the repository'
      : value.includes('\0') || value.length > MAX_VALUE
        ? `its value holds a NUL byte or is over ${MAX_VALUE} characters`
        : refusal(name, imageEnv);
    if (why) {
      decisions.push(`${from}: env ${name} not set: ${why}`);
      delete env[name];
    } else env[name] = value;
  }
  return env;
}
