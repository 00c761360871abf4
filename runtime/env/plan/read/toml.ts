// TOML files of the repository (pyproject.toml, .piper/sandbox.toml), parsed with smol-toml. A file
// that is not valid TOML is a typed error naming the file, line and column.
import { parse, TomlError } from 'smol-toml';
import { EnvPlanError, type EnvPlanErrorKind } from '../errors.js';
import type { InputRole, RepoReader } from './repo-reader.js';

export type TomlTable = Record<string, unknown>;

export function readToml(
  reader: RepoReader,
  rel: string,
  role: InputRole,
  kind: EnvPlanErrorKind,
): TomlTable | null {
  const text = reader.readText(rel, role);
  if (text === null) return null;
  try {
    return parse(text) as TomlTable;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const problem = error.message.split('\n')[0] ?? 'invalid TOML';
    throw new EnvPlanError(kind, `${rel}:${error.line}:${error.column}: not valid TOML: ${problem}`, {
      file: rel,
      line: error.line,
      expected: 'a TOML document',
    });
  }
}

export function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
