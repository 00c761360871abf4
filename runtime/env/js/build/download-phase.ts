// Phase 1: the locked tree downloaded with the network and with no repository code. The box starts
// from piper's toolchain image and gets the plan's manifests, lockfile and sanitized configuration
// as data (tree-files.ts); piper's own manager installs with every script off. Its image carries the
// downloaded-code label: no networked box ever starts from it.
import { BuildBox } from '../../build/build-box.js';
import { downloadedCodeLabel } from '../../build/offline/downloaded-code.js';
import { JS_TREE } from '../toolchain/layout.js';
import { downloadCommand, downloadEnv, inTree } from './install-commands.js';
import type { JsBuild } from './js-build.js';
import { lockfileUrls, manifestUrls } from './lockfile-urls.js';
import { dropRegistryAccess, putRegistryAccess } from './registry-files.js';
import { treeFiles, treeTar } from './tree-files.js';

/** The image of the downloaded tree (an intermediate of this build). */
export async function downloadPhase(b: JsBuild): Promise<string> {
  const { engine, plan, repoRoot, toolchain, registry, env } = b.input;
  const tree = treeFiles(repoRoot, plan);
  b.shortfalls.push(...tree.shortfalls);
  if (tree.lockedGit)
    b.fail(
      `${plan.lockfile?.path ?? 'the lockfile'} pins a git dependency: its package is made by its prepare script, which would run with the network`,
      'depend on a published version of it, or build the environment yourself and pass it with --image',
    );
  checkTreeUrls(b, tree.files);
  const box = await BuildBox.start(engine, {
    image: toolchain.ref,
    network: (await engine.hasBridgeNetwork()) ? 'bridge' : 'host',
    labels: b.labels,
    log: b.input.log,
    redactor: b.redactor,
  });
  try {
    b.check(await box.run({ name: 'tree dir', script: `mkdir -p ${JS_TREE}`, timeoutS: 30 }), 'tree dir');
    await box.put(JS_TREE, treeTar(tree.files));
    const access = await putRegistryAccess(box, registry, plan.manager.name, env);
    b.sources.push(access.said);
    const command = downloadCommand(plan.manager.name, tree.locked);
    if (!tree.locked)
      b.sources.push(
        `unlocked: ${plan.lockfile ? 'git dependencies left out, the lockfile followed loosely' : 'no lockfile'} (${command.split(' ').slice(1, 3).join(' ')})`,
      );
    const step = await box.run({
      name: 'download',
      script: inTree(command),
      env: [...downloadEnv(plan.manager.name), ...access.env],
      timeoutS: 1800,
    });
    if (!(await dropRegistryAccess(box)))
      b.fail('the registry login could not be removed from the download box', 'try again');
    b.check(step, 'download');
    b.check(
      await box.run({
        name: 'download clean',
        script: 'rm -rf /tmp/* /root/.npm /root/.cache',
        timeoutS: 120,
      }),
      'download clean',
    );
    b.sources.push(`download: ${plan.manager.name} ${plan.manager.version} (piper's own copy), scripts off`);
    const out = b.intermediate('jsdeps');
    await box.commit({ repo: out.repo, tag: out.tag, changes: [downloadedCodeLabel('deps')] });
    return out.ref;
  } finally {
    b.collect(box);
    await box.remove();
  }
}

/**
 * A lockfile URL or a manifest's dependency URL with a login or to a local address fails the build;
 * the lockfile's other hosts are said.
 */
function checkTreeUrls(b: JsBuild, files: { path: string; data: Buffer }[]): void {
  const { plan, registry } = b.input;
  const lockPath = plan.lockfile?.path;
  const lockText = files.find((f) => f.path === lockPath)?.data.toString('utf8');
  const manifests = new Set(plan.manifests.map((m) => m.path));
  const direct = files
    .filter((f) => manifests.has(f.path))
    .flatMap((f) => manifestUrls(f.data.toString('utf8')).map((url) => ({ path: f.path, url })));
  const urls = lockfileUrls(lockText ?? '', registry.url, direct);
  if (urls.refused)
    b.fail(
      `${urls.refused.path ?? lockPath} names a tarball URL the download may not fetch (${urls.refused.why}): ${urls.refused.url}`,
      'lock it against your registry (a repository never brings a login, nor a host on your network), or build the environment yourself and pass it with --image',
    );
  if (urls.otherHosts.length)
    b.sources.push(
      `${lockPath ?? 'the manifests'} name${lockPath ? 's' : ''} hosts other than your registry's: ${urls.otherHosts.slice(0, 5).join(', ')}${urls.otherHosts.length > 5 ? ` and ${urls.otherHosts.length - 5} more` : ''} (the manager maps its own default registry to yours and fetches any other as locked, against the lockfile's integrity)`,
    );
}
