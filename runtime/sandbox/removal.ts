// Removing a sandbox container where the caller cannot wait on an error (a pool's discard, the
// removal after a run, shutting down): the engine tries twice (DockerEngine.remove), and a removal
// that still fails is reported — the container's id, the engine's words, what happens to it —
// never swallowed. The container keeps its owner labels, so once this process is gone the next
// piper-agent's start-up sweep removes it (orphans.ts).
import { createdContainers } from '../engine/created-containers.js';
import type { DockerEngine } from '../engine/docker-engine.js';

/** Where a failed removal is told: the command's log (stderr, or the TUI's log). */
export type Report = (line: string) => void;

export const reportToStderr: Report = (line) => {
  process.stderr.write(`${line}\n`);
};

/** True once the container is gone; false (and reported) when the engine refused twice. */
export async function removeOrReport(engine: DockerEngine, id: string, report: Report): Promise<boolean> {
  try {
    await engine.remove(id);
    return true;
  } catch (error) {
    report(removalFailure(id, error));
    return false;
  }
}

function removalFailure(id: string, error: unknown): string {
  const short = id.slice(0, 12);
  return (
    `could not remove sandbox container ${short}: ${(error as Error).message}; ` +
    `the next piper-agent start removes it (or remove it yourself: docker rm -f ${short})`
  );
}

/**
 * For an interrupt: removes every container this process created and has not removed — the
 * sandbox's, its pools', the lint gate's compile server — waiting for creations in flight, and
 * refusing new ones from now on. A removal that fails is reported like any other.
 */
export function removeEveryContainer(report: Report): Promise<void> {
  return createdContainers.removeAll((id, error) => report(removalFailure(id, error)));
}
