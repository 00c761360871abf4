// Phase 2: the packages' lifecycle scripts and native builds, with no network and no secret, in a
// confined box from the downloaded tree; the workspace links made absolute (workspace-links.ts);
// the box stopped and its diff checked (only JS_TREE may change); committed as the environment.
// A script that fails offline (a binary it would fetch, a prebuilt addon with no compile fallback)
// is a named shortfall, not a failed build, unless the build is strict.
import { BuildBox } from '../../build/build-box.js';
import { cleanStep } from '../../build/steps.js';
import { ENV_LABEL } from '../../floor/names.js';
import { SHORTFALLS_LABEL, shortfallsLabel } from '../../build/shortfall.js';
import { inert } from '../../../text/inert.js';
import { JS_TREE } from '../toolchain/layout.js';
import { TOOLCHAIN_LABEL } from '../toolchain/toolchain-image.js';
import { IMAGE_ENV, inTree, rebuildCommand, rebuildEnv } from './install-commands.js';
import { lastLines, type JsBuild } from './js-build.js';
import { workspaceLinksStep } from './workspace-links.js';
import { binShadowsStep, shadowsSaid } from './bin-shadows.js';
import { writesOutsideTree } from './tree-writes.js';

const JS_LANGUAGE_LABEL = 'piper.env.language';
const JS_SOURCES = 'npm-registry';

/** The environment image's id. */
export async function rebuildPhase(b: JsBuild, from: string): Promise<string> {
  const { engine, plan, target } = b.input;
  const box = await BuildBox.start(engine, {
    image: from,
    network: 'none',
    labels: b.labels,
    log: b.input.log,
    confined: true,
    redactor: b.redactor,
  });
  try {
    const command = rebuildCommand(plan.manager.name);
    const r = await box.run({
      name: 'scripts offline',
      script: inTree(command),
      env: rebuildEnv(plan.manager.name),
      timeoutS: 1800,
    });
    if (r.exit_code !== 0) scriptsFailed(b, command, r.output_tail);
    else b.sources.push('scripts: lifecycle scripts and native builds ran offline');
    b.check(await box.run(workspaceLinksStep(plan.workspaces)), 'workspace links');
    const shadows = await box.run(binShadowsStep());
    b.check(shadows, 'bin shadows');
    const said = shadowsSaid(shadows.stdout);
    if (said) b.sources.push(said);
    b.check(await box.run(cleanStep()), 'clean');
    await box.stop();
    const outside = writesOutsideTree(await box.changes());
    if (outside.length)
      b.fail(
        `the offline scripts wrote outside ${JS_TREE}, where nothing installed may write: ${outside.slice(0, 10).map(inert).join(', ')}${outside.length > 10 ? ` and ${outside.length - 10} more` : ''}; nothing of it is kept`,
        "a dependency's install script writes into the system: leave it out, or build the environment yourself (--image)",
      );
    return await box.commit({ repo: target.repo, tag: target.tag, changes: imageChanges(b) });
  } finally {
    b.collect(box);
    await box.remove();
  }
}

function scriptsFailed(b: JsBuild, command: string, tail: string): void {
  const why = `failed offline: ${lastLines(tail, 4).replace(/\s+/g, ' ').slice(0, 400)}`;
  if (b.input.strict)
    b.fail(
      `the dependencies' lifecycle scripts ${why}`,
      "a script that needs the network cannot run in piper's build; without --env strict it is a shortfall",
    );
  b.shortfalls.push({
    kind: 'degraded',
    name: 'lifecycle scripts',
    wanted: command.split('/').pop() ?? command,
    got: 'the tree as downloaded (scripts that ran before the failure kept)',
    source: null,
    from: b.input.plan.lockfile?.path ?? 'package.json',
    optional: false,
    why,
  });
}

function imageChanges(b: JsBuild): string[] {
  const { key, base, toolchain, projectLabel } = b.input;
  return [
    IMAGE_ENV,
    'USER 1000:1000',
    'WORKDIR /work',
    'CMD ["node"]',
    // One label a line: Podman's commit reads `LABEL a=1 b=2` as one label.
    `LABEL ${ENV_LABEL.key}=${key}`,
    `LABEL ${ENV_LABEL.project}=${projectLabel}`,
    `LABEL ${ENV_LABEL.base}=${base.id}`,
    `LABEL ${ENV_LABEL.sources}=${JS_SOURCES}`,
    `LABEL ${TOOLCHAIN_LABEL}=${toolchain.key}`,
    `LABEL ${JS_LANGUAGE_LABEL}=javascript`,
    `LABEL ${SHORTFALLS_LABEL}=${shortfallsLabel(b.shortfalls, (t) => b.redactor.text(t))}`,
  ];
}
