// How long a one-shot command's warm container waits for the next command (SandboxOptions.keepWarm):
// PIPER_WARM_IDLE_S seconds, 600 by default; 0 keeps none.
import type { CommandSandboxOptions } from '../session.js';
import { numberOption } from '../options.js';

const WARM_IDLE_ENV = 'PIPER_WARM_IDLE_S';
const DEFAULT_IDLE_S = 600;

export const WARM_HELP = `A container is kept warm for the next run-test or execute of the same image: it is made as
every sandbox container is, serves one call, and exits and is removed after ${DEFAULT_IDLE_S} s unclaimed
(${WARM_IDLE_ENV}=SECONDS; 0 keeps none).`;

export function keepWarmOption(
  env: NodeJS.ProcessEnv = process.env,
): Pick<CommandSandboxOptions, 'keepWarm'> {
  const idleS = numberOption(WARM_IDLE_ENV, env[WARM_IDLE_ENV], { min: 0, max: 86_400, integer: true });
  const seconds = idleS ?? DEFAULT_IDLE_S;
  return seconds > 0 ? { keepWarm: { idleS: seconds } } : {};
}
