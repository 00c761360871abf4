// Which lockfile's closure the sandbox installs, read by its format (closure.ts and one file per
// format). A TOML lockfile comes first (lockfile.ts reads the first present); without one, the
// requirements files the plan read that are hashed throughout (pip-compile's), all of them.
import type { SandboxPython } from '../../read/marker-env.js';
import type { RepoReader } from '../../read/repo-reader.js';
import type { TomlTable } from '../../read/toml.js';
import { Unusable, type Closure } from './closure.js';
import { hashedRequirementsClosure, isHashedRequirements } from './hashed-requirements.js';
import { pdmClosure } from './pdm-lock.js';
import { poetryClosure } from './poetry-lock.js';
import { pylockClosure } from './pylock.js';
import { uvClosure } from './uv-lock.js';

/** The closure of the TOML lockfile `file` (already parsed), for the sandbox's Python. */
export function tomlClosure(
  file: string,
  root: TomlTable,
  python: SandboxPython,
  required: Set<string>,
): Closure {
  try {
    if (file === 'uv.lock') return uvClosure(root, python);
    if (file === 'poetry.lock') return poetryClosure(root, python, required);
    if (file === 'pdm.lock') return pdmClosure(root, python, required);
    return pylockClosure(root, python);
  } catch (error) {
    if (error instanceof Unusable) return { unusable: error.message };
    throw error;
  }
}

/** The hashed requirements files among those the plan read (`.txt` dependencies), and their joint closure. */
export function hashedFilesClosure(
  reader: RepoReader,
  python: SandboxPython,
): { files: string[]; closure: Closure } | null {
  const texts = reader
    .recorded()
    .filter((i) => i.role === 'dependencies' && /\.txt$/i.test(i.path))
    .map((i) => ({ path: i.path, text: reader.readText(i.path, 'dependencies') ?? '' }))
    .filter((f) => isHashedRequirements(f.text));
  if (!texts.length) return null;
  const files = texts.map((f) => f.path);
  try {
    const closure = hashedRequirementsClosure(texts.map((f) => f.text).join('\n'), python);
    return { files, closure };
  } catch (error) {
    const problem = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { files, closure: { unusable: problem ?? 'not read' } };
  }
}
