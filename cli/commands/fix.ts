// `piper-agent fix <issue>`: the agent on a repository, with the Ink TUI on a terminal and a
// headless renderer everywhere else (no TTY, CI=true, --non-interactive, or a JSON output format).
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { APPROVAL_MODES, type ApprovalMode } from '../../policy/approval.js';
import type { RunResult } from '../../policy/events.js';
import { repoRoot } from '../../runtime/host/git.js';
import { inert } from '../../runtime/text/inert.js';
import { checkOutputFile } from '../ci/patch-out.js';
import { writeRunOutputs } from '../ci/run-outputs.js';
import { loadConfig, type Config } from '../../core/config.js';
import { ENV_PARSE_OPTIONS, environmentFlags, sourcesFlag } from '../../core/env-option.js';
import { ConfigError, UsageError } from '../../core/exit-codes.js';
import { issueText } from '../fix/issue-text.js';
import { modelFor, runFix, type FixInput } from '../../core/fix/run-fix.js';
import { numberOption } from '../../core/options.js';
import { headlessSink, type OutputFormat } from '../render/headless.js';
import { settleRepoTrust } from '../repo-config-trust/settle.js';

export const FIX_HELP = `Usage: piper-agent fix <issue> [options]

Runs the agent on a Python repository until it stops, asks you something, or hits a cap. Every
run_test and execute runs in a fresh sandbox; every call is in the ledger (docs/ledger.md).

  <issue>              the issue as text, a path to a .md/.txt file, '-' for stdin, or a GitHub
                       issue URL (GITHUB_TOKEN for private repos; GITHUB_API_URL for Enterprise)
  --repo DIR           the repository (default: the git root of the current directory)
  --model SPEC         NAME or openai:NAME (JSON protocol), openai-tools:NAME (native function
                       calling), anthropic:NAME (Anthropic's Messages API: ANTHROPIC_API_KEY),
                       script:FILE.jsonl (replays scripted replies)   [env PIPER_MODEL]
  --base-url URL       OpenAI-compatible server root, e.g. http://127.0.0.1:8000/v1  [env OPENAI_BASE_URL;
                       default https://api.openai.com/v1 when OPENAI_API_KEY is set]
  --test TARGET        the repro target: pytest node id(s) or a shell string; a fix counts as
                       verified only when its tests ran and passed in the sandbox after the last
                       edit (exit 0 alone is not enough: none run, all skipped or counts unknown
                       are no pass), on the tests as written: a run that edits test-side files
                       (the target's files, conftest.py, the runner's config) ends tests_edited
  --max-turns N        turn cap, no-op turns included (default 30)
  --max-cost-usd X     cost cap (needs prices in the config)
  --max-tokens N       token cap
  --suite-timeout S    seconds the project's own suite may take before and after a fix (default 600;
                       over it only the test files importing the changed code run: "suite: partial";
                       0: no regression gate)  [env PIPER_SUITE_TIMEOUT_S]
  --policy ARM         policy (default) or current (the baseline loop: all tools, no gates)
  --output FORMAT      text (default), json (the result object), stream-json (one event per line)
  --non-interactive    never show the TUI or ask; an ask_user ends the run with exit 3
  --approval MODE      who decides whether an edit is written to your files: ask (the TUI's default:
                       each edit's diff is shown; Enter applies it, a applies it and every later edit
                       of that file in this run, n or Esc refuses it with an optional reason), auto (the
                       headless default: every edit that passes the lint gate is written, recorded and
                       undoable), read-only (nothing is written: the agent investigates and proposes).
                       Sandboxed run_test/execute never need approval. ask needs a terminal.
                       [env PIPER_APPROVAL, config approval]
  --ledger PATH        ledger file (default: the repository's own, in the state directory:
                       ~/.local/state/piper-agent/ledgers/; never a file git tracks)  [env PIPER_LEDGER]
  --image NAME         run in this image as it is (also PIPER_SANDBOX_IMAGE); no environment is built
  --trust-repo-config  apply the repository's .piper/config.json whole for this run, keys that need
                       trust included (without it: asked on a terminal, left out headless), and its
                       .piper/sandbox.toml's index URLs and setup commands
  --env MODE           the project environment: auto (default: built or reused from the project's
                       dependency files and .piper/sandbox.toml), base (the bare sandbox image),
                       rebuild; one that cannot be built stops the run before any model call (exit 2)
  --sources SOURCES    where the environment's packages come from: index (default: pip from the
                       index, Debian's packages for what it does not give; a fallback build from
                       Debian's when it does not answer) or debian (the index never asked)
                       [env PIPER_SOURCES, config sources, .piper/sandbox.toml sources]
  --patch-out FILE     write the run's committed edits as one unified diff to FILE (empty when none),
                       whatever the outcome; its directory must exist
  --verbose            on a terminal, also write the environment build's whole log (pip, apt) to
                       stderr after the run; without it the TUI shows the build as one progress line
                       and stderr gets only its last lines when it fails (headless runs always log it;
                       each step's command, exit code and output tail are in the ledger's
                       environments table)

When GITHUB_STEP_SUMMARY names a file, a markdown summary of the run (outcome, verified, the diff,
tokens, cost, run id, how to undo) is appended to it.

Configuration, lowest precedence first: ~/.config/piper-agent/config.json, <repo>/.piper/config.json,
the environment (PIPER_*, OPENAI_API_KEY, OPENAI_BASE_URL, TOOL_POLICY), the flags. See \`piper-agent config\`.
A repository's file may only narrow: its apiKey, baseUrl, image, ledger, lower prices, a raised cap,
or a model script from outside it apply only when you trust the file.

Exit status: 0 resolved and verified: the repro test passes and no test of the project's suite that
passed before the fix fails after it (docs/verified.md); 1 internal error; 2 usage or configuration
error (the model server refused the API key included), or another run is live on the repository (it
is named); 3 needs input (the question is in the output; answer with piper-agent resume RUN --answer
TEXT); 4 stopped or capped without a verified fix, regressed (the broken, muted or gone tests are
listed), or tests_edited (the test-side diff and the repro on the tests as written are shown); 5 no
sandbox engine. Never 0 for an unverified fix.`;

export const FIX_OPTIONS = {
  repo: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  test: { type: 'string' },
  'max-turns': { type: 'string' },
  'max-cost-usd': { type: 'string' },
  'max-tokens': { type: 'string' },
  'suite-timeout': { type: 'string' },
  policy: { type: 'string' },
  output: { type: 'string' },
  'non-interactive': { type: 'boolean', default: false },
  approval: { type: 'string' },
  ledger: { type: 'string' },
  image: { type: 'string' },
  ...ENV_PARSE_OPTIONS,
  'patch-out': { type: 'string' },
  verbose: { type: 'boolean', default: false },
} as const;

type FixValues = {
  [K in keyof typeof FIX_OPTIONS]?: (typeof FIX_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

/** Flags → the config layer they form (validated like every other layer). */
export function flagsConfig(values: FixValues): Config {
  const policy = values.policy;
  if (policy !== undefined && policy !== 'policy' && policy !== 'current')
    throw new UsageError(`--policy must be policy or current, got '${policy}'`);
  const approval = values.approval;
  if (approval !== undefined && !(APPROVAL_MODES as readonly string[]).includes(approval))
    throw new UsageError(`--approval must be ask, auto or read-only, got '${approval}'`);
  const output = values.output;
  if (output !== undefined && !['text', 'json', 'stream-json'].includes(output))
    throw new UsageError(`--output must be text, json or stream-json, got '${output}'`);
  const flags: Config = {
    model: values.model,
    baseUrl: values['base-url'],
    test: values.test,
    maxTurns: numberOption('--max-turns', values['max-turns'], { min: 1, max: 500, integer: true }),
    maxCostUsd: numberOption('--max-cost-usd', values['max-cost-usd'], { min: 0, max: 1e6 }),
    maxTokens: numberOption('--max-tokens', values['max-tokens'], { min: 1, max: 1e9, integer: true }),
    suiteTimeoutS: numberOption('--suite-timeout', values['suite-timeout'], {
      min: 0,
      max: 86400,
      integer: true,
    }),
    policy,
    approval: approval as ApprovalMode | undefined,
    output: output as OutputFormat | undefined,
    ledger: values.ledger,
    image: values.image,
    sources: sourcesFlag(values.sources),
  };
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as Config;
}

function isInteractive(values: FixValues, format: OutputFormat): boolean {
  return (
    !values['non-interactive'] &&
    format === 'text' &&
    process.stdout.isTTY === true &&
    process.stdin.isTTY === true &&
    process.env.CI !== 'true'
  );
}

export async function fixCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: FIX_OPTIONS, allowPositionals: true });
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length
        ? 'give one issue (quote it if it has spaces)'
        : 'fix needs an issue: text, a .md/.txt file, - for stdin, or a GitHub issue URL',
    );
  const patchOut = patchOutPath(values);
  const repo = values.repo === undefined ? repoRoot() : existingRepo(values.repo);
  const effective = loadConfig({
    repo,
    flags: flagsConfig(values),
    trustRepo: values['trust-repo-config'],
  });
  const config = await settleRepoTrust(effective, {
    repo,
    interactive: isInteractive(values, (effective.config.output ?? 'text') as OutputFormat),
    log: (line) => process.stderr.write(`${inert(line)}\n`),
  });
  if (!config.model) {
    throw new ConfigError(
      'no model configured: pass --model NAME (OpenAI: OPENAI_API_KEY; another server: also OPENAI_BASE_URL), anthropic:NAME (ANTHROPIC_API_KEY) or script:FILE.jsonl, or set PIPER_MODEL',
    );
  }
  modelFor(config); // a configuration error (no base URL, no key, no script file) before any work
  const issue = await issueText(positionals[0]!);
  // --trust-repo-config covers the repository's environment recipe (.piper/sandbox.toml) too.
  const env = environmentFlags(repo, values);
  const result = await runWithRenderer(
    { issue, repo, config, reproTarget: config.test ?? null, env },
    values,
  );
  writeRunOutputs('fix', result, patchOut);
  return result.exit_code;
}

/** --patch-out FILE, checked before any work (exit 2 when its directory does not exist). */
export function patchOutPath(values: FixValues): string | undefined {
  const file = values['patch-out'];
  return file === undefined ? undefined : checkOutputFile('--patch-out', file);
}

/** --repo DIR as given: a directory that exists (a run never creates the repository it works on). */
function existingRepo(dir: string): string {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`--repo ${dir} does not exist`);
  if (!stat.isDirectory()) throw new UsageError(`--repo ${dir} is not a directory`);
  return dir;
}

/**
 * The run's approval mode: as configured, else `ask` where someone can answer and `auto` headless
 * (CI has no one to ask; every edit is recorded and undoable). `ask` headless is a usage error,
 * not a hang.
 */
function approvalMode(configured: ApprovalMode | undefined, interactive: boolean): ApprovalMode {
  const mode = configured ?? (interactive ? 'ask' : 'auto');
  if (mode === 'ask' && !interactive)
    throw new UsageError(
      'approval mode ask needs a terminal to ask on, and this run is headless (no TTY, CI=true, --non-interactive or a JSON output): use --approval auto (every edit is written, recorded and undoable) or --approval read-only',
    );
  return mode;
}

/** Runs a fix with the TUI or a headless renderer, as the flags and the terminal decide. */
export async function runWithRenderer(
  input: Omit<FixInput, 'emit' | 'log' | 'askUser'>,
  values: FixValues,
): Promise<RunResult> {
  const format = (input.config.output ?? 'text') as OutputFormat;
  const log = (line: string) => process.stderr.write(`${inert(line)}\n`);
  const interactive = isInteractive(values, format);
  const mode = approvalMode(input.config.approval, interactive);
  if (interactive) {
    const { runWithTui } = await import('../tui/run-with-tui.js');
    return runWithTui({ ...input, approvalMode: mode, verbose: values.verbose === true });
  }
  return runFix({ ...input, emit: headlessSink(format), log, approval: { mode } });
}
