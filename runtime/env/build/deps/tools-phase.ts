// Phase 1b, only for a project with compiled parts (native.ts): the compiler, Python's headers and
// the -dev packages its sources include, from Debian, in a networked container FROM the dependency
// image (apt only: no repository code, no Python it supplied). The project's build runs on this
// image; the environment image does not — it is made FROM the dependency image — so no compiler
// is left where the tests run unless the recipe's `apt` asks for one.
import { BuildBox } from '../build-box.js';
import { runApt, type BuildContext } from '../build-context.js';
import type { NativeBuild } from '../../plan/native.js';
import { missingLines } from '../step-output.js';
import { cleanStep } from '../steps.js';

export async function toolsPhase(ctx: BuildContext, deps: string, native: NativeBuild): Promise<string> {
  const { engine, log } = ctx.input;
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  log(`environment ${ctx.target.ref}: build tools for ${native.evidence} (network: ${network})`);
  const box = await BuildBox.start(engine, { image: deps, network, labels: ctx.labels, log });
  try {
    const r = await runApt(ctx, box, 'build tools', native.apt, false);
    ctx.check(r, 'build tools');
    const missing = missingLines(r.stdout);
    await box.run(cleanStep());
    const tag = ctx.intermediateTag('tools');
    await box.commit({ repo: ctx.target.repo, tag, changes: [] });
    const ref = `${ctx.target.repo}:${tag}`;
    const [tools, base] = await Promise.all([engine.inspectImage(ref), engine.inspectImage(deps)]);
    const mb = ((tools?.size ?? 0) - (base?.size ?? 0)) / 1e6;
    ctx.sources.push(
      `build tools: ${native.apt.filter((p) => !missing.includes(p)).join(' ')} (${mb.toFixed(0)} MB, in the build step only)${missing.length ? `; not in Debian: ${missing.join(' ')}` : ''}`,
    );
    return ref;
  } finally {
    ctx.collect(box);
    await box.remove();
  }
}
