// Hatch environments in pyproject.toml: [tool.hatch.envs.<env>] for `default` (every other env
// inherits from it) and the envs whose name passes the test-name rule (`test`, `tests`,
// `hatch-test`, ...): their `dependencies` and `extra-dependencies` (PEP 508 strings; one holding
// Hatch's context formatting, `{root:uri}`, cannot be resolved without Hatch and is skipped) and
// `features` (the project's extras to install).
import { PYPROJECT, type ListedRequirement } from './pyproject.js';
import { isTestName } from '../tests/test-names.js';
import { isTable, type TomlTable } from '../read/toml.js';
import type { SkippedRequirement } from '../types.js';

export interface HatchEnvs {
  listed: ListedRequirement[];
  features: Array<{ extra: string; from: string }>;
  read: string[];
  notRead: string[];
  skipped: SkippedRequirement[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function readHatchEnvs(root: TomlTable): HatchEnvs | null {
  const tool = isTable(root.tool) ? root.tool : {};
  const hatch = isTable(tool.hatch) ? tool.hatch : {};
  if (!isTable(hatch.envs)) return null;
  const out: HatchEnvs = { listed: [], features: [], read: [], notRead: [], skipped: [] };
  for (const [env, body] of Object.entries(hatch.envs)) {
    if (!isTable(body)) continue;
    const section = `[tool.hatch.envs.${env}]`;
    if (env !== 'default' && !isTestName(env)) {
      out.notRead.push(section);
      continue;
    }
    out.read.push(section);
    for (const key of ['dependencies', 'extra-dependencies']) {
      const from = `${PYPROJECT} ${section}.${key}`;
      for (const text of strings(body[key])) {
        if (text.includes('{'))
          out.skipped.push({ line: text, from, reason: 'Hatch context formatting: not resolved' });
        else out.listed.push({ text, from });
      }
    }
    for (const extra of strings(body.features))
      out.features.push({ extra, from: `${PYPROJECT} ${section}.features` });
  }
  return out;
}
