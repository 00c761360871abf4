// Which of a harness spec's extras (`pip install -e .[test]`) the project at its base commit declares
// where the plan reads extras (pyproject's optional-dependencies, setup.cfg's extras_require). An
// extra only a setup.py declares cannot be named in a recipe (the plan never runs setup.py): it is
// dropped with its reason, and the plan's own choice of test extras stands.
import { readPyproject } from '../../runtime/env/plan/deps/pyproject.js';
import { readSetupCfg } from '../../runtime/env/plan/deps/setup-cfg.js';
import { projectExtras } from '../../runtime/env/plan/planner.js';
import { normalizeName } from '../../runtime/env/plan/read/normalize.js';
import { RepoReader } from '../../runtime/env/plan/read/repo-reader.js';
import type { SpecRecipe } from './spec-recipe.js';

export function keepDeclaredExtras(made: SpecRecipe, tree: string): SpecRecipe {
  const wanted = made.recipe.extras;
  if (!wanted?.length) return made;
  const reader = new RepoReader(tree);
  const declared = projectExtras(readPyproject(reader), readSetupCfg(reader)).byName;
  const kept = wanted.filter((extra) => declared.has(normalizeName(extra)));
  const lost = wanted.filter((extra) => !kept.includes(extra));
  if (!lost.length) return made;
  const { extras: _all, ...rest } = made.recipe;
  return {
    recipe: kept.length ? { ...rest, extras: kept } : rest,
    applied: made.applied,
    dropped: [
      ...made.dropped,
      `extras ${lost.join(', ')}: not declared in pyproject.toml or setup.cfg at this commit; the plan's own test extras instead`,
    ],
  };
}
