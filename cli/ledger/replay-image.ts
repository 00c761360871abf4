// The sandbox image a replay may run in. The recorded run names it, but a ledger is a file that can
// come from elsewhere (one named with --ledger: another machine's, a copy), so a name in it is no
// reason to run whatever image this engine holds: a replay runs in the recorded image only when piper built it (its own
// record of the build, not a label an image can carry from anywhere) or when the user's own
// configuration, environment or flags name that same image now.
import type { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { listSandboxImages } from '../../runtime/images/build.js';
import { CommandError } from './command-error.js';

export async function checkReplayImage(opts: {
  runId: string;
  image: string | undefined;
  engine: DockerEngine;
  /** The image the user's trusted configuration names (not the repository's untrusted file). */
  configured: string | undefined;
  /** `resume` of a run this machine did not record says it in one line, with its flag. */
  command?: 'replay' | 'resume';
}): Promise<void> {
  const { image } = opts;
  if (image === undefined || image === opts.configured) return;
  const info = await opts.engine.inspectImage(image);
  // A missing image is reported by the run itself, with how to get it.
  if (!info) return;
  const ours = (await listSandboxImages(opts.engine)).some((i) => i.builtByPiper && i.id === info.id);
  if (ours) return;
  if (opts.command === 'resume')
    throw new CommandError(
      `run ${opts.runId} was not started on this machine and ran in the image ${image}, which piper did not build and your configuration does not name; resume does not run an image because a ledger names it: pass --image ${image} to resume it there anyway`,
    );
  throw new CommandError(
    `run ${opts.runId} ran in the image ${image}, which piper did not build and your configuration does not name; a ledger can come with a repository, so replay does not run an image because a ledger names it`,
    `to replay it in that image anyway: PIPER_IMAGE=${image} piper-agent replay ${opts.runId}`,
  );
}
