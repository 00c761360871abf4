// Which of the sandbox's Pythons the environment gets: Debian trixie's 3.13 (the default), Debian
// bookworm's 3.11 or Debian bullseye's 3.9. The recipe's `python` or `debian` key wins, then a Python
// the caller asks for, then the project's requires-python ([project].requires-python, setup.cfg
// python_requires, Poetry's `python` dependency) when the default does not satisfy it: the newest
// of the others that does. None satisfying keeps the default, naming the Pythons it asks for that no
// reachable source carries (3.6 to 3.8, 3.10). Classifiers are never a choice, only a hint in the
// sentence. A requires-python too large to evaluate (version-bounds.ts) is not used, as one that is
// not PEP 440 is not.
import { satisfies, validRange } from '@renovatebot/pep440';
import {
  DEBIAN_OF,
  FULL_VERSION,
  PYTHON_OF,
  SANDBOX_PYTHONS,
  type DebianRelease,
  type SandboxPython,
} from './read/marker-env.js';
import { oversizedSpecifier, quoted } from './read/version-bounds.js';
import { RECIPE_PATH, type Recipe } from './recipe.js';

export interface RequiresPython {
  specifier: string;
  from: string;
}

export interface PythonChoice {
  python: SandboxPython;
  debian: DebianRelease;
  decision: string;
}

const DEFAULT: SandboxPython = '3.13';
/** Minors a project may ask for that no Debian release the sandbox reaches carries. */
const UNCARRIED = ['3.6', '3.7', '3.8', '3.10'] as const;

function name(python: SandboxPython): string {
  return `Python ${python} on Debian ${DEBIAN_OF[python]}`;
}

/** "classifiers list 3.8, 3.9, ..." when the project names Python versions there. */
function classifierHint(classifiers: readonly string[]): string {
  const versions = classifiers
    .map((c) => /^Programming Language :: Python :: (3\.\d+)$/.exec(c.trim())?.[1])
    .filter((v): v is string => v !== undefined);
  if (versions.length === 0) return '';
  const missing = versions.includes(DEFAULT) ? '' : `, not ${DEFAULT}`;
  return `; its classifiers list Python ${versions.join(', ')}${missing} (a hint only)`;
}

/** The minors of UNCARRIED a specifier allows (a release at the minor's start or deep in it). */
function uncarriedPythons(specifier: string): string[] {
  if (!validRange(specifier)) return [];
  return UNCARRIED.filter((minor) => [`${minor}.0`, `${minor}.99`].some((v) => satisfies(v, specifier)));
}

/** The sentence for a requires-python no sandbox Python satisfies. */
function noneSatisfies(said: string, specifier: string): string {
  const wanted = uncarriedPythons(specifier);
  const others = SANDBOX_PYTHONS.join(', ');
  if (wanted.length === 0) return `the default; ${said} excludes ${others}, so the default is kept`;
  return `the default; ${said} needs Python ${wanted.join(' or ')}, which no reachable source carries (the sandbox has ${others}), so the default is kept`;
}

export function choosePython(
  recipe: Recipe,
  requested: SandboxPython | undefined,
  requires: RequiresPython | null,
  classifiers: readonly string[],
): PythonChoice {
  const said = requires ? `requires-python "${quoted(requires.specifier)}" (${requires.from})` : '';
  const oversized = requires && oversizedSpecifier(requires.specifier);
  const valid = requires !== null && !oversized && validRange(requires.specifier);
  const allows = (python: SandboxPython): boolean =>
    !valid || satisfies(FULL_VERSION[python], requires.specifier);
  const pick = (python: SandboxPython, why: string): PythonChoice => ({
    python,
    debian: DEBIAN_OF[python],
    decision: `${name(python)}: ${why}`,
  });
  const fixed = recipe.python ?? (recipe.debian ? PYTHON_OF[recipe.debian] : undefined);
  if (fixed) {
    const key = recipe.python ? 'python' : 'debian';
    const over = requested && requested !== fixed ? ` (over the requested Python ${requested})` : '';
    const against = allows(fixed) ? '' : `, though ${said} excludes it`;
    return pick(fixed, `${RECIPE_PATH} ${key}${over}${against}`);
  }
  if (requested)
    return pick(requested, `requested${allows(requested) ? '' : `, though ${said} excludes it`}`);
  if (requires === null)
    return pick(DEFAULT, `the default (no requires-python${classifierHint(classifiers)})`);
  if (oversized) return pick(DEFAULT, `the default; ${said} was not read: ${oversized}`);
  if (!valid) return pick(DEFAULT, `the default; ${said} is not a PEP 440 specifier, so it was not used`);
  if (allows(DEFAULT)) return pick(DEFAULT, `the default; ${said} allows it`);
  // The newest that satisfies it: every newer one is excluded (SANDBOX_PYTHONS is newest first).
  const at = SANDBOX_PYTHONS.findIndex(allows);
  if (at > 0)
    return pick(SANDBOX_PYTHONS[at]!, `${said} excludes ${SANDBOX_PYTHONS.slice(0, at).join(' and ')}`);
  return pick(DEFAULT, noneSatisfies(said, requires.specifier));
}
