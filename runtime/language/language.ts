// A language is a profile of a repository: which files are its source, which grammar indexes them,
// which gate checks an edit, how its environment is planned and built, which command runs its tests
// and which reader counts their outcomes. Each of those parts keeps its own table keyed by the
// profile's id (so the profile itself stays data, at the bottom of the layers, and no part imports
// another's); the id is chosen once per command (detect-language.ts) and travels with the session.
// Python is the first profile: a repository with no JavaScript markers gets it, exactly as before.

export const LANGUAGES = ['python', 'javascript'] as const;
export type LanguageId = (typeof LANGUAGES)[number];

export interface LanguageProfile {
  id: LanguageId;
  /** What prompts and tool descriptions call a repository of it ("a Python repository"). */
  repositoryNoun: string;
  /** File-name endings of its source files, as the code index reads them. */
  sourceExtensions: readonly string[];
  /** Files at the repository's root that declare a project of it. */
  markers: readonly string[];
}

export const PROFILES: Readonly<Record<LanguageId, LanguageProfile>> = {
  python: {
    id: 'python',
    repositoryNoun: 'Python repository',
    sourceExtensions: ['.py'],
    markers: [
      'pyproject.toml',
      'setup.py',
      'setup.cfg',
      'requirements.txt',
      'Pipfile',
      'tox.ini',
      'noxfile.py',
    ],
  },
  javascript: {
    id: 'javascript',
    repositoryNoun: 'JavaScript/TypeScript repository',
    // Declaration files (.d.ts) end in .ts too: they are source the model may read.
    sourceExtensions: ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'],
    markers: ['package.json'],
  },
};

/** Whether a repo-relative path is a source file of the language. */
export function isSourceOf(id: LanguageId, path: string): boolean {
  return PROFILES[id].sourceExtensions.some((ending) => path.endsWith(ending));
}
