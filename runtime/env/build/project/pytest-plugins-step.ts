// The pytest plugins a build container holds, read after each phase that installs distributions
// (the dependencies, then the repository's wheels on top of them: each scan sees the whole image so
// far, so the last one is the record). The editable project's own entry points come from its
// dist-info, read back as data by the builder.
import type { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { entryPointsScanStep, parseEntryPointsScan } from './pytest-entry-points.js';

export async function scanPytestPlugins(ctx: BuildContext, box: BuildBox): Promise<void> {
  const r = await box.run(entryPointsScanStep('pytest plugins', ctx.spec.plan.python));
  ctx.pytestPlugins.splice(0, ctx.pytestPlugins.length, ...parseEntryPointsScan(r.stdout));
}
