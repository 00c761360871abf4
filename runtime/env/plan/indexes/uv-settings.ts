// uv's index settings in one of its settings tables (a uv.toml, or pyproject's [tool.uv]), read
// the way uv reads them and mapped to pip's: `[[index]]` entries (`default = true` replaces the
// default index, `format = "flat"` is a page of links, `explicit = true` serves only the packages
// that name it — pip cannot do that, so it is said and left out), then the older `index-url`,
// `extra-index-url` and `find-links`. uv gives `[[index]]` precedence over `index-url`; pip asks every
// index for every package, so the order among extras decides nothing.
import { isTable, type TomlTable } from '../read/toml.js';
import { addIndex, noSources, type IndexSources } from './index-sources.js';

/** A named index's URL with the user's login for it (uv's UV_INDEX_<NAME>_USERNAME/PASSWORD). */
export type IndexLogin = (name: string, url: string) => string;

/**
 * `file` names the settings in notes and `from`; `section` is where they sit in it (`tool.uv` in a
 * pyproject.toml, '' in a uv.toml).
 */
export function readUvSettings(
  table: TomlTable,
  file: string,
  section = '',
  login?: IndexLogin,
): IndexSources {
  const out = noSources();
  const where = section ? `${file} [${section}]` : file;
  const indexTable = `${file} [[${section ? `${section}.` : ''}index]]`;
  const entries = table.index === undefined ? [] : Array.isArray(table.index) ? table.index : [table.index];
  entries.forEach((entry, n) => {
    if (!isTable(entry)) {
      out.notes.push(`${indexTable} #${n + 1} is not a table; not used`);
      return;
    }
    const name = typeof entry.name === 'string' ? entry.name : null;
    const from = `${indexTable} ${name ?? `#${n + 1}`}`;
    if (entry.explicit === true) {
      out.notes.push(
        `${from} is explicit (only for the packages that name it): pip cannot keep an index to some packages; not used`,
      );
      return;
    }
    const url = name && login && typeof entry.url === 'string' ? login(name, entry.url) : entry.url;
    const kind = entry.format === 'flat' ? 'flat' : entry.default === true ? 'default' : 'extra';
    addIndex(out, kind, url, from);
  });
  if (table['index-url'] !== undefined) addIndex(out, 'default', table['index-url'], `${where} index-url`);
  for (const url of list(table['extra-index-url'])) addIndex(out, 'extra', url, `${where} extra-index-url`);
  for (const link of list(table['find-links'])) {
    // A directory of this machine or the repository: uv's, not a URL a build box can ask.
    if (typeof link === 'string' && !/^https?:/i.test(link))
      out.notes.push(
        `${where} find-links ${link} is a local path; not used (.piper/sandbox.toml find_links takes the repository's)`,
      );
    else addIndex(out, 'flat', link, `${where} find-links`);
  }
  return out;
}

function list(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
