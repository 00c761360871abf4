// Phase 1b, only for a project with compiled parts (native.ts): the compiler, Python's headers and
// the -dev packages its sources include, from Debian, onto the dependency image. That image holds
// downloaded code, so no step with a network starts from it (downloaded-code.ts): apt downloads the
// packages in a box of the sandbox image and installs them in a box of the dependency image with no
// network (apt-offline.ts; apt only, no repository code, no Python it supplied). The project's build
// runs on this image; the environment image does not — it is made FROM the dependency image — so no
// compiler is left where the tests run unless the recipe's `apt` asks for one.
import { aptOffline } from '../offline/apt-offline.js';
import type { BuildContext } from '../build-context.js';
import type { NativeBuild } from '../../plan/native.js';
import { missingLines } from '../step-output.js';
import { cleanStep } from '../steps.js';

export async function toolsPhase(ctx: BuildContext, deps: string, native: NativeBuild): Promise<string> {
  const { engine, log } = ctx.input;
  log(`environment ${ctx.target.ref}: build tools for ${native.evidence}`);
  const { box, step: r } = await aptOffline(ctx, deps, 'build tools', native.apt, false);
  try {
    ctx.check(r, 'build tools');
    // A step that succeeded ran in its box.
    if (!box) throw new Error('build tools: no box');
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
    if (box) {
      ctx.collect(box);
      await box.remove();
    }
  }
}
