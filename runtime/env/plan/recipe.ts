// `.piper/sandbox.toml`: the project's recipe, which overrides detection. The schema is declared
// once here; an unknown key, a wrong type, an apt name Debian would refuse, a find_links path out of
// the repository or a requirement that is not PEP 508 is a typed error naming the file, the key and
// what is expected there.
import { z } from 'zod';
import { EnvPlanError } from './errors.js';
import { DEBIAN_OF, DEBIAN_RELEASES, SANDBOX_PYTHONS, UNREACHABLE_PYTHONS } from './read/marker-env.js';
import { parseRequirement } from './read/pep508.js';
import { redactUrl } from './read/redact.js';
import { cleanRelative, type RepoReader } from './read/repo-reader.js';
import { readToml } from './read/toml.js';
import { ENV_SOURCES } from './types.js';

export const RECIPE_PATH = '.piper/sandbox.toml';

const APT_NAME = /^[a-z0-9][a-z0-9+.-]+$/;
const URL_TEXT = z.string().refine((value) => /^(https?|file):\/\//.test(value) && URL.canParse(value));

/** What each key holds, in words, for error messages (and the README). */
export const RECIPE_KEYS = {
  debian: '"trixie", "bookworm" or "bullseye"',
  extras: 'a list of the project\'s optional-dependency names, e.g. ["test"] ([] for none)',
  groups: 'a list of dependency-group names, e.g. ["test"] ([] for none)',
  requirements: 'a list of PEP 508 requirements, e.g. ["pytest>=8"]',
  apt: `a list of Debian package names matching ${APT_NAME.source}`,
  find_links: 'a list of directories inside the repository holding wheels',
  index_url: 'an http(s):// or file:// URL of a PEP 503 index',
  extra_index_urls: 'a list of http(s):// or file:// index URLs',
  setup: 'a list of shell commands run at build time',
  test: 'the default test command, e.g. "pytest -q"',
  detect: "true or false (false: install only the recipe's requirements)",
  strict:
    'true or false (true: a requirement no source meets fails the build instead of being relaxed or left out)',
  sources:
    '"index" (pip from the index, Debian\'s packages for the rest) or "debian" (Debian\'s packages, no index)',
  python: `"3.13", "3.11" or "3.9" (${UNREACHABLE_PYTHONS})`,
} as const;

const RecipeSchema = z.strictObject({
  debian: z.enum(DEBIAN_RELEASES).optional(),
  extras: z.array(z.string().min(1)).optional(),
  groups: z.array(z.string().min(1)).optional(),
  requirements: z.array(z.string().min(1)).optional(),
  apt: z.array(z.string().regex(APT_NAME)).optional(),
  find_links: z.array(z.string().min(1)).optional(),
  index_url: URL_TEXT.optional(),
  extra_index_urls: z.array(URL_TEXT).optional(),
  setup: z.array(z.string().min(1)).optional(),
  test: z.string().min(1).optional(),
  detect: z.boolean().optional(),
  strict: z.boolean().optional(),
  sources: z.enum(ENV_SOURCES).optional(),
  python: z.enum(SANDBOX_PYTHONS).optional(),
});

export type Recipe = z.infer<typeof RecipeSchema>;

function keyPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${String(part)}`))
    .join('');
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return redactUrl(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let here = data;
  for (const part of path) here = (here as Record<PropertyKey, unknown> | undefined)?.[part];
  return here;
}

function recipeError(key: string, expected: string, problem: string): EnvPlanError {
  return new EnvPlanError('bad_recipe', `${RECIPE_PATH}: key "${key}": ${problem} (expected ${expected})`, {
    file: RECIPE_PATH,
    key,
    expected,
  });
}

/** The recipe checked against its schema (the data is parsed TOML). */
export function validateRecipe(data: unknown): Recipe {
  const parsed = RecipeSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    if (issue.code === 'unrecognized_keys') {
      const key = keyPath([...issue.path, issue.keys[0] as string]);
      throw recipeError(key, `one of ${Object.keys(RECIPE_KEYS).join(', ')}`, 'unknown key');
    }
    const top = issue.path[0] as keyof typeof RECIPE_KEYS;
    throw recipeError(keyPath(issue.path), RECIPE_KEYS[top], `got ${describe(valueAt(data, issue.path))}`);
  }
  const recipe = parsed.data;
  // Each Python is one Debian release's: two keys naming different ones cannot both hold.
  if (recipe.python && recipe.debian && DEBIAN_OF[recipe.python] !== recipe.debian)
    throw recipeError(
      'python',
      RECIPE_KEYS.python,
      `Python ${recipe.python} is not Debian ${recipe.debian}'s`,
    );
  recipe.requirements?.forEach((line, index) => {
    try {
      parseRequirement(line);
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw recipeError(`requirements[${index}]`, RECIPE_KEYS.requirements, problem);
    }
  });
  return recipe;
}

/** The recipe's find_links as repo-relative directories; each must exist inside the repository. */
export function recipeFindLinks(recipe: Recipe, reader: RepoReader): string[] {
  return (recipe.find_links ?? []).map((path, index) => {
    const clean = cleanRelative(path);
    if (clean === null || reader.escapes(clean)) {
      throw recipeError(
        `find_links[${index}]`,
        RECIPE_KEYS.find_links,
        `${describe(path)} is outside the repository`,
      );
    }
    if (!reader.isDir(clean)) {
      throw recipeError(
        `find_links[${index}]`,
        RECIPE_KEYS.find_links,
        `${describe(path)} is not a directory`,
      );
    }
    return clean;
  });
}

export interface LoadedRecipe {
  recipe: Recipe;
  sha256: string;
}

/** The repository's recipe, or null when it has none. */
export function loadRecipe(reader: RepoReader): LoadedRecipe | null {
  const data = readToml(reader, RECIPE_PATH, 'recipe', 'bad_recipe');
  if (data === null) return null;
  const recipe = validateRecipe(data);
  const input = reader.recorded().find((entry) => entry.role === 'recipe' && entry.path === RECIPE_PATH);
  return { recipe, sha256: input?.sha256 ?? '' };
}
