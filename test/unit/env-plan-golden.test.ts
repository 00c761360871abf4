// Golden `env plan --json` outputs: planEnvironment over each fixture repository, rendered as the
// CLI renders it (credentials redacted, keys in schema order) and formatted as prettier formats the
// golden files. UPDATE_GOLDEN=1 rewrites them; a changed golden file is reviewed by eye.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { renderPlanJson, renderPlanText } from '../../runtime/env/plan/render.js';
import { EnvPlanSchema } from '../../runtime/env/plan/types.js';
import { packageRoot } from '../../runtime/package-root.js';

const FIXTURES = join(packageRoot(), 'test', 'fixtures', 'env');
const NAMES = [
  'pyproject-basic',
  'pyproject-groups',
  'requirements-includes',
  'setup-cfg',
  'tox-only',
  'recipe-override',
  'src-layout',
  'flat-stdlib',
  'tooling-dev-group',
  'pip-compiled',
  'poetry-dev',
  'pdm-dev',
  'hatch-env',
  'tox-legacy',
  'nox-sessions',
  'pytest-inferred',
  'requires-python-311',
];

async function formatted(json: string, file: string): Promise<string> {
  const config = (await resolveConfig(file)) ?? {};
  return format(json, { ...config, parser: 'json', filepath: file });
}

describe('env plan golden outputs', () => {
  for (const name of NAMES) {
    it(name, async () => {
      const plan = planEnvironment(join(FIXTURES, name));
      expect(EnvPlanSchema.parse(plan)).toEqual(plan);
      const file = join(FIXTURES, 'golden', `${name}.json`);
      const actual = await formatted(renderPlanJson(plan), file);
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, actual);
      expect(actual).toBe(readFileSync(file, 'utf8'));
      // The text form renders every requirement and never shows a credential.
      const text = renderPlanText(plan);
      for (const requirement of plan.requirements) expect(text).toContain(requirement.line);
      expect(text).not.toContain('s3cret');
    });
  }
});
