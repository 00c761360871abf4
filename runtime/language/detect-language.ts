// Which profile a repository gets (language.ts), from its own files, read without running any of
// them: the recipe's `language` key when it names one; else the one language whose markers sit at
// the root (pyproject.toml, setup.py, … or package.json); with both or neither, the language with
// more source files in the repository listing (the snapshot's and the index's, so vendored and
// built copies are already left out), Python on a tie. Many Python projects keep a package.json for
// their docs or their front end, and many JavaScript ones a requirements.txt for a script: counting
// what the repository is mostly written in tells them apart where a marker cannot.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listRepoFiles } from '../workspace/repo-listing.js';
import { LANGUAGES, PROFILES, isSourceOf, type LanguageId } from './language.js';

export interface LanguageChoice {
  id: LanguageId;
  /** One clause for `env plan` and the init event, e.g. "package.json at the root". */
  why: string;
}

function markersAt(root: string, id: LanguageId): string[] {
  return PROFILES[id].markers.filter((name) => existsSync(join(root, name)));
}

function sourceCounts(root: string): Record<LanguageId, number> {
  const counts = { python: 0, javascript: 0 } satisfies Record<LanguageId, number>;
  for (const path of listRepoFiles(root).paths) {
    for (const id of LANGUAGES) if (isSourceOf(id, path)) counts[id] += 1;
  }
  return counts;
}

export function detectLanguage(root: string, recipeLanguage?: LanguageId): LanguageChoice {
  if (recipeLanguage) return { id: recipeLanguage, why: 'the recipe names it' };
  const found = LANGUAGES.filter((id) => markersAt(root, id).length > 0);
  if (found.length === 1) {
    const id = found[0]!;
    return { id, why: `${markersAt(root, id).join(', ')} at the root` };
  }
  const counts = sourceCounts(root);
  const id: LanguageId = counts.javascript > counts.python ? 'javascript' : 'python';
  const other: LanguageId = id === 'python' ? 'javascript' : 'python';
  const what = found.length ? 'markers of both' : 'no markers';
  return { id, why: `${what} at the root; ${counts[id]} ${id} source files against ${counts[other]}` };
}
