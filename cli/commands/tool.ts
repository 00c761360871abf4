// `piper-agent tool NAME 'ARGS_JSON'`: one call through the same path a model's call takes —
// validation (with the exact rejection strings), execution, the trust gate, the ledger — and the
// observation printed as the model would read it. For debugging, and to check every rule by hand.
// The call itself is core/one-shot/model-call-once.ts; here: the flags, the printing, the exit code.
import { parseArgs } from 'node:util';
import { isPlainObject } from '../../policy/proposal.js';
import { isReservedName, TOOL_NAMES } from '../../policy/registry.js';
import type { PolicyName } from '../../policy/loop-settings.js';
import { gitRootAbove, repoRoot } from '../../runtime/host/git.js';
import { IN_MEMORY_LEDGER } from '../../runtime/ledger/location.js';
import { inert, inertJson } from '../../runtime/text/inert.js';
import { ENV_FLAG_HELP, ENV_PARSE_OPTIONS } from '../../core/env-option.js';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import { modelCallOnce } from '../../core/one-shot/model-call-once.js';

export const TOOL_HELP = `Usage: piper-agent tool NAME 'ARGS_JSON' [--repo DIR] [--run RUN] [--policy policy|current] [--ledger PATH] [--env MODE]

Sends one call through validation, execution and the trust gate, records it in the ledger, and
prints the observation exactly as the model would see it (a rejection prints the rejection object).

  NAME          ${TOOL_NAMES.slice(0, -1).join(', ')} or ${TOOL_NAMES.at(-1)}
  ARGS_JSON     the call's args as one JSON object, e.g. '{"selector": "pkg.mod.func", "body": true}'
  --run RUN     check the evidence gate against, and record into, an existing run (default: a new run)
  --policy ARM  current skips the evidence gate and the trust marks (the baseline arm)
${ENV_FLAG_HELP}

run_test and execute run as the agent's do: in the project environment, built or reused as for fix
(\`piper-agent env --help\`); the other tools need none.

Exit status: 0 the call ran (whatever its result), 4 it was rejected, 2 bad usage, 5 no engine.
Example: piper-agent tool edit_entity '{"selector": "calc.add", "search": "a - b", "replace": "a + b"}'
         → {"ok":false,"rejected":true,"tool":"edit_entity","reason":"precondition failed: no evidence for selector calc.add"}`;

const OPTIONS = {
  repo: { type: 'string' },
  run: { type: 'string' },
  policy: { type: 'string' },
  ledger: { type: 'string' },
  ...ENV_PARSE_OPTIONS,
} as const;

export async function toolCommand(argv: string[]): Promise<number> {
  const { values, name, args, arm } = parseToolArgs(argv);
  const repo = values.repo ?? repoRoot();
  const seen = await modelCallOnce(
    { ...values, repo, ledger: ledgerOf(values) },
    { name, args, arm, run: values.run },
    (l) => process.stderr.write(`${inert(l)}\n`),
  );
  // The model's view, as JSON that parses to the same value but holds no raw terminal control.
  process.stdout.write(`${inertJson(seen.view)}\n`);
  process.stderr.write(`── run ${seen.runId} · call ${seen.callId}${seen.rejected ? ' (rejected)' : ''}\n`);
  return seen.rejected ? EXIT.no : EXIT.ok;
}

type ToolValues = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** NAME, ARGS_JSON as one JSON object and --policy, checked before anything is opened. */
function parseToolArgs(argv: string[]): {
  values: ToolValues;
  name: string;
  args: Record<string, unknown>;
  arm: PolicyName;
} {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [name, argsJson = '{}'] = positionals;
  if (!name || positionals.length > 2)
    throw new UsageError(
      'give a tool NAME and its args as one JSON object: tool read_entity \'{"selector": "..."}\'',
    );
  if (isReservedName(name)) throw new UsageError(`${name} is a reserved outcome of the loop, not a tool`);
  const arm = (values.policy ?? 'policy') as PolicyName;
  if (arm !== 'policy' && arm !== 'current')
    throw new UsageError(`--policy must be policy or current, got '${values.policy}'`);
  let args: unknown;
  try {
    args = JSON.parse(argsJson);
  } catch (error) {
    throw new UsageError(`ARGS_JSON is not JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(args)) throw new UsageError('ARGS_JSON must be one JSON object');
  return { values, name, args, arm };
}

/** The ledger the call is recorded in: the repository's, or in memory outside any repository. */
function ledgerOf(values: ToolValues): string | undefined {
  // Outside any repository (no --repo, no git root above here) the call is recorded in memory
  // only: a ledger file would be litter in whatever directory the user happened to be in.
  const unrecorded =
    values.repo === undefined && values.ledger === undefined && !process.env.PIPER_LEDGER && !gitRootAbove();
  if (!unrecorded) return values.ledger;
  process.stderr.write(
    `not in a git repository: the call is not recorded (pass --repo DIR or --ledger PATH to record it)\n`,
  );
  return IN_MEMORY_LEDGER;
}
