// `doctor`'s check of what a run's end can tell: whether the engine reports a container killed at
// its memory limit (State.OOMKilled). Docker and Podman 5 do; Podman before 5.0 never does, so on
// it such a run's receipt says "killed by SIGKILL" with the likely cause, never "out of memory".
// Not a problem to fix for a run to go on (the limit is the hardening check's business), so ok.
import type { EngineIdentity } from '../../runtime/engine/engine-identity.js';
import { UNREPORTED_KILL_REASON } from '../../runtime/sandbox/container-run.js';

export interface OomCheck {
  name: 'oom';
  ok: true;
  detail: string;
  /** Whether a memory kill is reported as one (receipt oom_killed) on this engine. */
  reported: boolean;
}

export function oomCheck(identity: EngineIdentity): OomCheck {
  if (identity.reportsOomKills)
    return {
      name: 'oom',
      ok: true,
      detail: 'the engine reports out-of-memory kills (a run killed at its memory limit: oom_killed)',
      reported: true,
    };
  return {
    name: 'oom',
    ok: true,
    detail:
      `${identity.kind} ${identity.version} does not report out-of-memory kills (Podman 5.0 and later ` +
      `do): a run killed at its memory limit has oom_killed false, exit 137 and the reason "${UNREPORTED_KILL_REASON}"`,
    reported: false,
  };
}
