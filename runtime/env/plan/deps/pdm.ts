// PDM's development dependencies in pyproject.toml: [tool.pdm.dev-dependencies], groups of PEP 508
// strings (PDM's own table, from before PEP 735), read for the groups whose name passes the
// test-name rule. An entry starting with `-` is a pip requirements-file line (`-e .[test]`); one
// holding a PDM variable (`${PROJECT_ROOT}`) cannot be resolved without PDM and is skipped.
import { PYPROJECT, type ListedRequirement } from './pyproject.js';
import { isTestName } from '../tests/test-names.js';
import { isTable, type TomlTable } from '../read/toml.js';
import type { SkippedRequirement } from '../types.js';

export interface PdmDevGroups {
  listed: ListedRequirement[];
  /** Entries in pip's requirements-file syntax (`-e ...`). */
  pipLines: ListedRequirement[];
  read: string[];
  notRead: string[];
  skipped: SkippedRequirement[];
}

export function readPdmDevGroups(root: TomlTable): PdmDevGroups | null {
  const tool = isTable(root.tool) ? root.tool : {};
  const pdm = isTable(tool.pdm) ? tool.pdm : {};
  const groups = pdm['dev-dependencies'];
  if (!isTable(groups)) return null;
  const out: PdmDevGroups = { listed: [], pipLines: [], read: [], notRead: [], skipped: [] };
  for (const [group, entries] of Object.entries(groups)) {
    const key = `[tool.pdm.dev-dependencies].${group}`;
    if (!isTestName(group)) {
      out.notRead.push(key);
      continue;
    }
    out.read.push(key);
    const from = `${PYPROJECT} ${key}`;
    for (const text of Array.isArray(entries) ? entries : []) {
      if (typeof text !== 'string') continue;
      if (text.includes('${')) out.skipped.push({ line: text, from, reason: 'a PDM variable: not resolved' });
      else (text.trimStart().startsWith('-') ? out.pipLines : out.listed).push({ text, from });
    }
  }
  return out;
}
