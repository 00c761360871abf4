// The process exit code of each run outcome; the CLI's own codes (core/exit-codes.ts) extend these.
// Never 0 for an unverified fix: `resolved` already implies a verified repro test. A module of its
// own, with no runtime import, so the CLI's start-up (`--help`, `--version`) loads no package.
import type { Outcome } from './events.js';

export const OUTCOME_EXIT_CODES: Readonly<Record<Outcome, number>> = {
  resolved: 0,
  error: 1,
  ask_user: 3,
  stop: 4,
  cap: 4,
  regressed: 4,
  tests_edited: 4,
};
