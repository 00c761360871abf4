// Whether the index answers, asked once before an index build is chosen (ensure.ts): from a box of
// the sandbox image on the build's network, with the user's pip sources and pip's own patience
// (steps.ts indexProbeStep). An index that does not answer makes the build a fallback from Debian's
// packages under a key of its own, so the next command asks again and builds from the index once it
// answers. No repository code and nothing downloaded runs here; the box is removed at once.
import type { DockerEngine } from '../../engine/docker-engine.js';
import type { EnvironmentStep } from '../../ledger/environments.js';
import { ownerLabels } from '../../sandbox/owner-labels.js';
import { BoxLostError, BuildBox } from '../build/build-box.js';
import { putIndexFiles } from '../build/network/index-files.js';
import { indexProbeStep } from '../build/steps.js';
import { pipSourceEnv, type PipSettings } from '../plan/pip-settings.js';

export interface IndexProbe {
  answered: boolean;
  /**
   * For the record and the user: `your pip sources not reachable (URL Error ...); not tried`. As
   * the probe printed it: a URL's credentials are masked where it is written (the record's
   * redactor, the output guard).
   */
  said: string;
  step: EnvironmentStep;
}

export async function probeIndex(
  engine: DockerEngine,
  opts: { image: string; pip: PipSettings; owner: string; log: (line: string) => void },
): Promise<IndexProbe> {
  try {
    return await probeOnce(engine, opts);
  } catch (error) {
    // A box removed or stopped from outside says nothing of the index: asked once more, as a phase is.
    if (!(error instanceof BoxLostError)) throw error;
    opts.log(`${error.message}; the index is asked again in a new box`);
    return probeOnce(engine, opts);
  }
}

async function probeOnce(
  engine: DockerEngine,
  opts: { image: string; pip: PipSettings; owner: string; log: (line: string) => void },
): Promise<IndexProbe> {
  const { pip } = opts;
  const network = (await engine.hasBridgeNetwork()) ? 'bridge' : 'host';
  const box = await BuildBox.start(engine, {
    image: opts.image,
    network,
    labels: ownerLabels(opts.owner),
    log: opts.log,
    redactor: pip.redactor,
  });
  try {
    await putIndexFiles(box, pip);
    const r = await box.run(indexProbeStep(pipSourceEnv(pip, [])));
    const reached = /^piper-reached (\d+)$/m.exec(r.stdout);
    const unreachable = r.stdout
      .split('\n')
      .find((l) => l.startsWith('piper-unreachable '))
      ?.slice('piper-unreachable '.length);
    const where = pip.defaultIndex ? "pip's default index" : 'your pip sources';
    const answered = reached !== null && reached[1] !== '0';
    const why = unreachable ?? (reached ? 'no answer' : `the probe ended with exit ${r.exit_code}`);
    return {
      answered,
      // As pip's own words are kept: the record is redacted when written, the terminal by its guard.
      said: answered ? `${where} answered` : `${where} not reachable (${why}); not tried`,
      step: box.steps[0]!,
    };
  } finally {
    await box.remove();
  }
}
