// Phase 2a, only for a repository that ships wheels (`find_links` in its recipe or requirements
// files): its wheels installed into the dependency image with no network and no secret. A wheel is
// code the moment any Python starts after it (a `.pth` runs at every start), so it never enters
// the networked phase, and a requirement a repository wheel provides is never asked of an index
// (no substitution of the repository's package by a public one of the same name). Their content
// is in the environment's key (their sha256), so the image they make is the same for the same wheels.
import type { BuildContext } from '../build-context.js';
import { putWheelDirs, WHEELHOUSE } from '../wheel-dirs.js';
import { scanPytestPlugins } from '../project/pytest-plugins-step.js';
import { parseVersionsScan, versionsScanStep } from './installed-versions.js';
import { pipRequirementLine } from '../../plan/deps/pip-line.js';
import { unsatisfied } from '../step-output.js';
import { cleanStep, repoWheelsStep } from '../steps.js';
import { checkInstallWrites, downloadedCodeLabel } from '../offline/downloaded-code.js';

/** Returns the image to build the project on: the wheels' image, or `base` when none was needed. */
export async function wheelhousePhase(
  ctx: BuildContext,
  base: string,
  provided: Set<string>,
): Promise<string> {
  const { log } = ctx.input;
  const { plan } = ctx.spec;
  const wanted = plan.requirements.filter((q) => provided.has(q.normalized));
  if (!wanted.length) return base;
  log(`environment ${ctx.target.ref}: the repository's wheels (network: none)`);
  const box = await ctx.offlineBox(base);
  try {
    const dirs = await putWheelDirs(box, ctx.spec.pip.repoWheels);
    const r = await box.run(repoWheelsStep(wanted.map(pipRequirementLine), dirs));
    const versions = parseVersionsScan((await box.run(versionsScanStep('versions', plan.python))).stdout);
    const unmet = unsatisfied(wanted, Object.fromEntries(versions));
    await scanPytestPlugins(ctx, box);
    if (r.exit_code !== 0 && (ctx.spec.strict || unmet.length === wanted.length)) ctx.check(r, 'wheelhouse');
    if (ctx.spec.strict && unmet.length)
      ctx.fail(
        `the repository's wheelhouse has no wheel that meets ${unmet.map((q) => `${q.name} ${q.specifier}`.trim()).join(', ')} (strict)`,
        'add the wheels to the wheelhouse, or build best effort (no `strict`)',
      );
    for (const q of wanted) {
      const version = versions.get(q.normalized);
      if (version && !unmet.includes(q))
        ctx.resolved.set(q.normalized, { name: q.name, version, source: 'pip' });
      else
        ctx.shortfalls.push({
          kind: version ? 'relaxed' : 'missing',
          name: q.name,
          wanted: q.specifier || q.line,
          got: version ?? null,
          source: version ? 'wheelhouse' : null,
          from: q.from,
          optional: q.optional ?? false,
          why: "the repository's wheelhouse has no wheel that meets it",
        });
    }
    ctx.sources.push(
      `wheelhouse: ${wanted.length - unmet.length} of ${wanted.length} from the repository's wheels`,
    );
    const clean = cleanStep();
    await box.run({ ...clean, script: `rm -rf ${WHEELHOUSE}; ${clean.script}` });
    await checkInstallWrites(ctx, box, "the install of the repository's wheels");
    const tag = ctx.intermediateTag('wheels');
    await box.commit({ repo: ctx.target.repo, tag, changes: [downloadedCodeLabel('wheels')] });
    return `${ctx.target.repo}:${tag}`;
  } finally {
    ctx.collect(box);
    await box.remove();
  }
}
