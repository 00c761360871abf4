// The indexes a repository's own tool settings name, joined to the pip options of its recipe and
// requirements files (detect.ts): uv's (uv.toml, else [tool.uv]), then Poetry's sources, then PDM's.
// An index here replaces the default only where the recipe and the requirements files named none;
// whatever is added counts as the repository's, so it is used only when the user trusts the
// repository (pip-settings.ts) and ignored with the one note otherwise. What pip cannot honour
// (an index kept to some packages) is a decision of the plan.
import type { RepoReader } from '../read/repo-reader.js';
import { redactUrl } from '../read/redact.js';
import type { TomlTable } from '../read/toml.js';
import type { EnvPlan } from '../types.js';
import type { IndexSources } from './index-sources.js';
import { readPdmSources } from './pdm-sources.js';
import { readPoetrySources } from './poetry-sources.js';
import { readRepoUv } from './uv-repo.js';

export function addRepoIndexes(
  pip: EnvPlan['pip'],
  reader: RepoReader,
  pyproject: TomlTable | null,
  decisions: string[],
): void {
  for (const sources of [
    readRepoUv(reader, pyproject),
    readPoetrySources(pyproject),
    readPdmSources(pyproject),
  ])
    join(pip, sources, decisions);
}

function join(pip: EnvPlan['pip'], sources: IndexSources, decisions: string[]): void {
  decisions.push(...sources.notes);
  const noted = (from: string | null) => {
    for (const f of from ? [from] : sources.from) if (!pip.fromFiles.includes(f)) pip.fromFiles.push(f);
  };
  if (sources.indexUrl !== null) {
    if (pip.indexUrl === null) {
      pip.indexUrl = sources.indexUrl;
      decisions.push(`index URL ${redactUrl(sources.indexUrl)} (${sources.indexFrom})`);
      noted(sources.indexFrom);
    } else if (pip.indexUrl !== sources.indexUrl)
      decisions.push(
        `${sources.indexFrom}: ${redactUrl(sources.indexUrl)} not used as the index: ${redactUrl(pip.indexUrl)} came first`,
      );
  }
  const more = (list: string[], urls: string[]) => {
    for (const url of urls.filter((u) => !list.includes(u) && u !== pip.indexUrl)) list.push(url);
  };
  more(pip.extraIndexUrls, sources.extraIndexUrls);
  more(pip.findLinks, sources.findLinks);
  if (sources.extraIndexUrls.length || sources.findLinks.length) noted(null);
}
