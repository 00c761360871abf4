// What `piper-agent ab --cluster swarm` does once its flags are read: the CI image of this build on
// the local engine (built offline when missing), the images placed for the nodes (images.ts), every
// unfinished instance run as a Swarm job (swarm-runner.ts), and the report written as a local run's.
import { connectEngine } from '../../runtime/engine/bootstrap.js';
import { ensureCiImage } from '../../runtime/images/ci-image.js';
import { loadRecipe } from '../../runtime/images/recipe.js';
import { currentOwner } from '../../runtime/sandbox/owner.js';
import { loadConfig } from '../../core/config.js';
import { EXIT } from '../../core/exit-codes.js';
import { summary, type AbRequest } from '../ab/launch.js';
import { Progress } from '../ab/progress.js';
import { writeReport } from '../ab/report.js';
import { placeImages } from './images.js';
import { runSwarmAb } from './swarm-runner.js';

interface SwarmRequest extends AbRequest {
  /** The manager's endpoint: --cluster-host, else DOCKER_HOST. */
  endpoint: string;
  registry: string | null;
  jobTimeoutS: number;
}

export async function launchSwarmAb(request: SwarmRequest): Promise<number> {
  const { config } = loadConfig({ repo: process.cwd() });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const outcome = await runSwarmAb({
    ...request,
    maxTurns: config.maxTurns ?? 30,
    modelConfig: { baseUrl: config.baseUrl, apiKey: config.apiKey },
    images: async (client) => {
      const { engine } = await connectEngine();
      const ci = await ensureCiImage(engine, { log });
      const refs = { ci: ci.ref, sandbox: loadRecipe().ref };
      return placeImages(engine, client, refs, request.registry, currentOwner(), log);
    },
    progress: (total) => new Progress(process.stderr, total),
    log,
  });
  const files = writeReport(request.outDir, outcome.report);
  process.stderr.write(summary(outcome, files));
  return outcome.failures.length > 0 ? EXIT.failure : EXIT.ok;
}
