// The loop's typed event stream (docs/architecture.md: the core runs headless; the Ink app and the
// JSONL renderer are two consumers of these events). `type` names are the stream-json names.
// Declared once as zod schemas: the TypeScript types are inferred from them, and `piper-agent
// schema` prints the JSON Schema generated from them, so the documented contract cannot drift.
import { z } from 'zod';
import { trustSchema } from '../runtime/ledger/observation-row.js';
import { TOOL_NAMES, type ToolName } from './registry.js';
import { suiteReportSchema } from './regression/suite-report.js';

/**
 * `interrupted`: SIGINT (exit 130) or SIGTERM (exit 143) stopped the run; written by the CLI, not the loop.
 * `regressed`: the repro test passed but the project's suite shows a test that passed before the
 * fix and fails after it; written by the regression gate after the loop (docs/verified.md).
 * `tests_edited`: the repro test passed, but the run edited test-side files (the repro's own files,
 * conftest.py, the runner's configuration or plugins): never `resolved`, whatever the tests as
 * written say; the test-side diff and the repro's verdict on the original tests travel with it.
 */
const OUTCOMES = [
  'resolved',
  'ask_user',
  'stop',
  'cap',
  'error',
  'regressed',
  'tests_edited',
  'interrupted',
] as const;
/** The loop's own outcomes; a result's outcome may also be `interrupted`. */
export type Outcome = Exclude<(typeof OUTCOMES)[number], 'interrupted'>;

const origin = z.enum(['model', 'trigger']);
const turn = z.number().int().min(0);
/** A ledger call id (`c-` and 12 hex digits), or null where no call row exists. */
const callId = z.string().nullable();

export const testFailureSchema = z.object({
  test: z.string().describe('the pytest node id'),
  line: z.string().optional().describe('the first line pytest marked with E'),
});

const testsEditedSchema = z.object({
  files: z.array(z.string()).describe('the test-side files the run edited'),
  diff: z.string().describe("the run's edits of those files, as one unified diff"),
  as_written: z
    .object({
      passed: z
        .boolean()
        .describe('tests ran and passed, by the counts, with those files as the base had them'),
      detail: z.string().describe('the counts, or why it is no pass'),
    })
    .nullable()
    .describe(
      'the repro target on the final tree with every test-side file put back; null when it could not run',
    ),
});
export type TestsEdited = z.infer<typeof testsEditedSchema>;

const runResultSchema = z.object({
  run_id: z.string(),
  outcome: z.enum(OUTCOMES),
  reason: z.string(),
  verified: z
    .boolean()
    .describe('the repro target passed in the sandbox after the last committed edit (from the ledger)'),
  exit_code: z.number().int(),
  question: z.string().optional(),
  turns: z.number().int().min(0),
  tokens: z.number().int().min(0),
  cost_usd: z.number().nullable(),
  diff: z.string().describe("the run's committed edits as one unified diff (from the ledger)"),
  suite: suiteReportSchema
    .optional()
    .describe("the project's own suite before and after the fix: present when the repro test passed"),
  verification: z
    .string()
    .optional()
    .describe(
      "why the repro test's last run after the last edit is no pass although it exited 0 (no test ran, all skipped, a failure named, counts unknown)",
    ),
  tests_edited: testsEditedSchema
    .optional()
    .describe(
      'outcome tests_edited: the test-side files the run changed, and the repro test run on them as written',
    ),
});
export type RunResult = z.infer<typeof runResultSchema>;

export const loopEventSchemas = {
  init: z.object({
    type: z.literal('init'),
    run_id: z.string(),
    repo: z.string(),
    model: z.string(),
    policy: z.enum(['policy', 'current']),
    test: z.string().nullable(),
    budget: z.object({
      max_turns: z.number().int(),
      max_tokens: z.number().nullable(),
      max_cost_usd: z.number().nullable(),
      max_wall_s: z.number().nullable(),
    }),
  }),
  // The environment the run's sandboxes use, chosen before the first call: `built`, reused (`hit`),
  // the bare sandbox image (`base`), or a user-provided image (`user`).
  environment: z.object({
    type: z.literal('environment'),
    status: z.enum(['built', 'hit', 'base', 'user']),
    key: z.string().nullable(),
    image: z.string(),
    seconds: z.number(),
    sources: z.array(z.string()),
    shortfalls: z
      .array(z.string())
      .describe(
        'what the build could not meet, one line each: `relaxed: NAME WANTED → GOT (SOURCE)` or `missing: NAME WANTED (…)`',
      ),
    fallback: z
      .string()
      .optional()
      .describe(
        "present when the image is a fallback build from Debian's packages (sources = index, and the index did not answer): why, in one line",
      ),
  }),
  index: z
    .object({
      type: z.literal('index'),
      phase: z.enum(['started', 'finished']),
      files: z.number().int().optional(),
      entities: z.number().int().optional(),
      parsed: z.number().int().optional().describe('files parsed now; the others came from the cache'),
      seconds: z.number().optional(),
    })
    .describe(
      "the code index of the repository, built (or read from the ledger's cache) after `init`: `started`, then `finished` with its counts; a large repository takes seconds",
    ),
  turn: z.object({ type: z.literal('turn'), turn }),
  toolset: z.object({
    type: z.literal('toolset'),
    turn,
    tools: z.array(z.enum(TOOL_NAMES as [ToolName, ...ToolName[]])),
    truncated: z.boolean(),
    source: z.string(),
  }),
  proposal: z.object({
    type: z.literal('proposal'),
    turn,
    call_id: callId.describe(
      "the ledger id the call has once dispatched or rejected: the same id as its `execution` and `observation` events and its row in the ledger's calls table; null for ask_user and stop, which make no call row",
    ),
    tool: z.string(),
    args: z.record(z.string(), z.unknown()),
    origin,
    trigger: z.string().optional(),
    text: z
      .string()
      .optional()
      .describe("the model's own words alongside its tool call (native tools), when it gave any"),
  }),
  rejection: z.object({
    type: z.literal('rejection'),
    turn,
    call_id: z
      .string()
      .describe("the rejected call's ledger id: the same as its `proposal` event's and its calls row's"),
    tool: z.string(),
    reason: z.string(),
    reselect: z.boolean(),
  }),
  noop: z.object({ type: z.literal('noop'), turn, reason: z.string() }),
  execution: z.object({
    type: z.literal('execution'),
    phase: z.enum(['started', 'finished']),
    turn,
    call_id: callId,
    tool: z.string(),
    origin,
    exit_code: z.number().int().nullable().optional(),
    timed_out: z.boolean().optional(),
    ms: z.number().optional(),
  }),
  observation: z.object({
    type: z.literal('observation'),
    turn,
    call_id: callId,
    kind: z.string(),
    target: z.string(),
    trust: trustSchema.nullable(),
    caveat: z.string().optional(),
    summary: z.string(),
    failures: z
      .array(testFailureSchema)
      .optional()
      .describe('a test that did not pass: which tests failed and their first assertion line'),
  }),
  usage: z.object({
    type: z.literal('usage'),
    turn,
    tokens_in: z.number().int(),
    tokens_out: z.number().int(),
    cost_usd: z.number().nullable(),
    total_tokens: z.number().int(),
    total_cost_usd: z.number().nullable(),
  }),
  ask_user: z.object({ type: z.literal('ask_user'), turn, question: z.string() }),
  answer: z.object({ type: z.literal('answer'), turn, answer: z.string() }),
  // The regression gate, after the loop: `started` when the final run begins, `finished` with its report.
  suite: z.object({
    type: z.literal('suite'),
    phase: z.enum(['started', 'finished']),
    command: z.string().describe("the project's own test command"),
    report: suiteReportSchema.optional().describe('when finished: what the comparison found'),
  }),
  result: runResultSchema.extend({ type: z.literal('result') }),
} as const;

const s = loopEventSchemas;
/** @public The schema of every loop event row, kept for its type (LoopEvent). */
export const loopEventSchema = z.discriminatedUnion('type', [
  s.init,
  s.environment,
  s.index,
  s.turn,
  s.toolset,
  s.proposal,
  s.rejection,
  s.noop,
  s.execution,
  s.observation,
  s.usage,
  s.ask_user,
  s.answer,
  s.suite,
  s.result,
]);

export type LoopEvent = z.infer<typeof loopEventSchema>;

export type EventSink = (event: LoopEvent) => void;
