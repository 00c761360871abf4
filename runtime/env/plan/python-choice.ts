// Which of the sandbox's Pythons the environment gets: Debian trixie's 3.13 (the default) or
// Debian bookworm's 3.11. The recipe's `debian` key wins, then a Python the caller asks for, then
// the project's requires-python ([project].requires-python, setup.cfg python_requires, Poetry's
// `python` dependency) when the default does not satisfy it and 3.11 does. Neither satisfying
// keeps the default. Classifiers are never a choice, only a hint in the sentence. A requires-python
// too large to evaluate (version-bounds.ts) is not used, as one that is not PEP 440 is not.
import { satisfies, validRange } from '@renovatebot/pep440';
import {
  DEBIAN_OF,
  FULL_VERSION,
  PYTHON_OF,
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
const OTHER: SandboxPython = '3.11';

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
  if (recipe.debian) {
    const python = PYTHON_OF[recipe.debian];
    const over = requested && requested !== python ? ` (over the requested Python ${requested})` : '';
    const against = allows(python) ? '' : `, though ${said} excludes it`;
    return pick(python, `${RECIPE_PATH} debian${over}${against}`);
  }
  if (requested)
    return pick(requested, `requested${allows(requested) ? '' : `, though ${said} excludes it`}`);
  if (requires === null)
    return pick(DEFAULT, `the default (no requires-python${classifierHint(classifiers)})`);
  if (oversized) return pick(DEFAULT, `the default; ${said} was not read: ${oversized}`);
  if (!valid) return pick(DEFAULT, `the default; ${said} is not a PEP 440 specifier, so it was not used`);
  if (allows(DEFAULT)) return pick(DEFAULT, `the default; ${said} allows it`);
  if (allows(OTHER)) return pick(OTHER, `${said} excludes ${DEFAULT}`);
  return pick(DEFAULT, `the default; ${said} excludes both ${DEFAULT} and ${OTHER}, so the default is kept`);
}
