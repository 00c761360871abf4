// The set-up log a run writes before `init` (runtime/env/choose/ensure.ts → builder.ts → build-box.ts, and
// the sandbox image's build), read back by its line shapes: the only structure the log has, so this
// is the one place that knows them. `environment REF: WHAT` opens a phase, `  [STEP] command` a
// step, and a line indented further is a step's output. The TUI shows one progress line from them
// and keeps the build's lines off the final screen (its steps are in the ledger's environments row).

export type SetupLine =
  | { kind: 'phase'; phase: string }
  | { kind: 'step'; step: string }
  /** A step's own output (pip, dpkg, the image build): the build's log, not a fact for the user. */
  | { kind: 'output' }
  /** Anything else: a sweep, an environment note, a warning — said to the user as it is. */
  | { kind: 'other' };

const PHASE = /^environment \S+: (.+)$/;
const STEP = /^ {2}\[([^\]]+)\]/;
const BUILDING = /^building (?:the environment of|the Debian|\S+ from) /;

export function setupLine(line: string): SetupLine {
  const phase = PHASE.exec(line);
  // "dependencies (network: bridge)" → "dependencies": the network is in the ledger's steps.
  if (phase) return { kind: 'phase', phase: phase[1]!.replace(/ \(network: [^)]*\)$/, '') };
  if (BUILDING.test(line))
    return {
      kind: 'phase',
      phase: line.startsWith('building the environment') ? 'starting' : 'the sandbox image',
    };
  const step = STEP.exec(line);
  if (step) return { kind: 'step', step: step[1]! };
  if (/^\s/.test(line)) return { kind: 'output' };
  return { kind: 'other' };
}

/** Whether a line is the build's own log (phases, steps, output) rather than a word to the user. */
function isBuildLog(line: string): boolean {
  return setupLine(line).kind !== 'other';
}

/** What the progress line shows: the phase and step the build is in, and since when it runs. */
export interface SetupProgress {
  phase: string;
  step: string | null;
  since: number;
}

export function advance(progress: SetupProgress | null, line: string, now: number): SetupProgress | null {
  const parsed = setupLine(line);
  if (parsed.kind === 'phase') return { phase: parsed.phase, step: null, since: progress?.since ?? now };
  if (parsed.kind === 'step')
    return { phase: progress?.phase ?? 'building', step: parsed.step, since: progress?.since ?? now };
  return progress;
}

/** The last lines of a failed build, for stderr: the message says what failed, these show where. */
export const FAILED_BUILD_TAIL = 30;

/**
 * The lines stderr gets after the TUI's screen: the words to the user always; the build's own
 * lines with --verbose, or the last FAILED_BUILD_TAIL of them when the build failed.
 */
export function logAfterRun(logs: string[], opts: { verbose: boolean; failedBuild: boolean }): string[] {
  if (opts.verbose) return logs;
  const build = logs.filter(isBuildLog);
  const said = logs.filter((line) => !isBuildLog(line));
  if (!opts.failedBuild || !build.length) return said;
  const tail = build.slice(-FAILED_BUILD_TAIL);
  return [
    ...said,
    `the environment build's last ${tail.length} of ${build.length} line(s) (all of them: --verbose):`,
    ...tail,
  ];
}
