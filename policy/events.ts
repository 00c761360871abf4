// The loop's typed event stream (DESIGN.md section 1: the core runs headless; the Ink app and the
// JSONL renderer are two consumers of these events). `type` names are the stream-json names.
import type { ToolName } from './registry.js';
import type { TestFailure } from './test-failures.js';

export type Outcome = 'resolved' | 'ask_user' | 'stop' | 'cap' | 'error';

/**
 * The process exit code of each run outcome; the CLI's own codes (cli/exit-codes.ts) extend these.
 * Never 0 for an unverified fix: `resolved` already implies a verified repro test.
 */
export const OUTCOME_EXIT_CODES: Readonly<Record<Outcome, number>> = {
  resolved: 0,
  error: 1,
  ask_user: 3,
  stop: 4,
  cap: 4,
};

export interface RunResult {
  run_id: string;
  outcome: Outcome;
  reason: string;
  /** The repro target passed in the sandbox after the last committed edit (read from the ledger). */
  verified: boolean;
  exit_code: number;
  question?: string;
  turns: number;
  tokens: number;
  cost_usd: number | null;
  /** The run's committed edits as one unified diff (from the ledger). */
  diff: string;
}

export type LoopEvent =
  | {
      type: 'init';
      run_id: string;
      repo: string;
      model: string;
      policy: 'policy' | 'current';
      test: string | null;
      budget: {
        max_turns: number;
        max_tokens: number | null;
        max_cost_usd: number | null;
        max_wall_s: number | null;
      };
    }
  | {
      // The environment the run's sandboxes use, chosen before the first call (issue 9): `built`,
      // reused (`hit`), the bare sandbox image (`base`), or a user-provided image (`user`).
      type: 'environment';
      status: 'built' | 'hit' | 'base' | 'user';
      key: string | null;
      image: string;
      seconds: number;
      sources: string[];
    }
  | { type: 'turn'; turn: number }
  | { type: 'toolset'; turn: number; tools: ToolName[]; truncated: boolean; source: string }
  | {
      type: 'proposal';
      turn: number;
      tool: string;
      args: Record<string, unknown>;
      origin: 'model' | 'trigger';
      trigger?: string;
      /** The model's own words alongside its tool call (native tools), when it gave any. */
      text?: string;
    }
  | { type: 'rejection'; turn: number; tool: string; reason: string; reselect: boolean }
  | { type: 'noop'; turn: number; reason: string }
  | {
      type: 'execution';
      phase: 'started' | 'finished';
      turn: number;
      call_id: string | null;
      tool: string;
      origin: 'model' | 'trigger';
      exit_code?: number | null;
      timed_out?: boolean;
      ms?: number;
    }
  | {
      type: 'observation';
      turn: number;
      call_id: string | null;
      kind: string;
      target: string;
      trust: 'trusted' | 'unverified' | null;
      caveat?: string;
      summary: string;
      /** A test that did not pass: which tests failed and their first assertion line. */
      failures?: TestFailure[];
    }
  | {
      type: 'usage';
      turn: number;
      tokens_in: number;
      tokens_out: number;
      cost_usd: number | null;
      total_tokens: number;
      total_cost_usd: number | null;
    }
  | { type: 'ask_user'; turn: number; question: string }
  | { type: 'answer'; turn: number; answer: string }
  | ({ type: 'result' } & RunResult);

export type EventSink = (event: LoopEvent) => void;
