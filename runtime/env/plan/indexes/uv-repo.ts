// The repository's uv index settings: its uv.toml, else pyproject's [tool.uv] (uv reads a project's
// uv.toml over its [tool.uv]). Read through the planner's reader, so the file is an input of the
// keys; used only when the user trusts the repository (pip-settings.ts), as its other index URLs.
import { parse } from 'smol-toml';
import { isTable, type TomlTable } from '../read/toml.js';
import type { RepoReader } from '../read/repo-reader.js';
import { noSources, type IndexSources } from './index-sources.js';
import { readUvSettings } from './uv-settings.js';

const UV_TOML = 'uv.toml';

export function readRepoUv(reader: RepoReader, pyproject: TomlTable | null): IndexSources {
  const text = reader.readText(UV_TOML, 'dependencies');
  if (text !== null) {
    try {
      const table = parse(text);
      if (isTable(table)) return readUvSettings(table, UV_TOML);
    } catch (error) {
      // uv's file, not piper's: a broken one costs its indexes, not the plan.
      const out = noSources();
      out.notes.push(
        `${UV_TOML} is not valid TOML (${String(error).split('\n')[0]}); its indexes are not read`,
      );
      return out;
    }
  }
  const tool = pyproject?.tool;
  const uv = isTable(tool) ? tool.uv : undefined;
  return isTable(uv) ? readUvSettings(uv, 'pyproject.toml', 'tool.uv') : noSources();
}
