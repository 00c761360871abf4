// PDM's package sources, `[[tool.pdm.source]]`, as pip's indexes: a source named pypi replaces
// pip's default index, the others are asked beside it (PDM keeps PyPI unless pypi is overridden),
// `type = "find_links"` is a flat page of links. A URL holding `${VAR}` is one PDM fills from the
// environment; piper does not expand a repository's text into the user's variables (a login
// belongs in netrc), so it is said and left out. `include_packages` / `exclude_packages` cannot
// be kept by pip: the source is asked for every package, and that is said.
import { isTable, type TomlTable } from '../read/toml.js';
import { addIndex, noSources, type IndexSources } from './index-sources.js';

export function readPdmSources(pyproject: TomlTable | null): IndexSources {
  const out = noSources();
  const tool = pyproject?.tool;
  const pdm = isTable(tool) ? tool.pdm : undefined;
  const sources = isTable(pdm) && Array.isArray(pdm.source) ? pdm.source : [];
  sources.forEach((source, n) => {
    if (!isTable(source)) return;
    const name = typeof source.name === 'string' ? source.name : `#${n + 1}`;
    const from = `pyproject.toml [[tool.pdm.source]] ${name}`;
    if (typeof source.url === 'string' && source.url.includes('${')) {
      out.notes.push(`${from}: its URL names environment variables, which piper does not fill in; not used`);
      return;
    }
    if (source.include_packages !== undefined || source.exclude_packages !== undefined)
      out.notes.push(
        `${from}: pip asks it for every package (include_packages / exclude_packages are PDM's)`,
      );
    const kind = source.type === 'find_links' ? 'flat' : name.toLowerCase() === 'pypi' ? 'default' : 'extra';
    addIndex(out, kind, source.url, from);
  });
  return out;
}
