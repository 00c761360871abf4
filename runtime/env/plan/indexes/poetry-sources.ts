// Poetry's package sources, `[[tool.poetry.source]]`, as pip's indexes. Poetry's priorities:
// `primary` (the default when none is given; also the older `default = true`) — the first
// replaces pip's default index unless a source named PyPI is listed (then PyPI, pip's own default,
// stays and every primary is an extra); `supplemental` (also `secondary = true`) — an extra index;
// `explicit` — only for the packages that name it, which pip cannot do: said and left out.
import { isTable, type TomlTable } from '../read/toml.js';
import { addIndex, noSources, type IndexSources } from './index-sources.js';

export function readPoetrySources(pyproject: TomlTable | null): IndexSources {
  const out = noSources();
  const tool = pyproject?.tool;
  const poetry = isTable(tool) ? tool.poetry : undefined;
  const sources = isTable(poetry) && Array.isArray(poetry.source) ? poetry.source : [];
  const named = (s: unknown) => (isTable(s) && typeof s.name === 'string' ? s.name : null);
  const keepsPypi = sources.some((s) => named(s)?.toLowerCase() === 'pypi');
  sources.forEach((source, n) => {
    const from = `pyproject.toml [[tool.poetry.source]] ${named(source) ?? `#${n + 1}`}`;
    if (!isTable(source)) return;
    // PyPI named as a source: pip's own default index, already there.
    if (named(source)?.toLowerCase() === 'pypi' && source.url === undefined) return;
    const priority = priorityOf(source);
    if (priority === 'explicit')
      out.notes.push(
        `${from} is explicit (only for the packages that name it): pip cannot keep an index to some packages; not used`,
      );
    else if (priority === 'primary' && !keepsPypi)
      addIndex(out, out.indexUrl ? 'extra' : 'default', source.url, from);
    else addIndex(out, 'extra', source.url, from);
  });
  return out;
}

function priorityOf(source: TomlTable): 'primary' | 'supplemental' | 'explicit' {
  const p = typeof source.priority === 'string' ? source.priority.toLowerCase() : null;
  if (p === 'explicit') return 'explicit';
  if (p === 'supplemental' || p === 'secondary' || source.secondary === true) return 'supplemental';
  return 'primary';
}
