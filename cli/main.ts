// piper-agent's command line: picks the command, maps failures to documented exit codes, and
// prints every error with what to do about it. No agent logic lives here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_HELP, envCommand } from './commands/env.js';
import { isEnvPlanError } from '../runtime/env/plan/errors.js';
import { isRuntimeError } from '../runtime/errors.js';
import { inert } from '../runtime/text/inert.js';
import { RepoBusyError } from '../runtime/host/repo-lock.js';
import { sqliteFailure } from '../runtime/ledger/open-error.js';
import { isModelError } from '../runtime/model/types.js';
import { IndexError } from '../primitives/index/index-error.js';
import { packageRoot } from '../runtime/package-root.js';
import { AB_HELP, abCommand } from './commands/ab.js';
import { CI_IMAGE_HELP, ciImageCommand } from './commands/ci-image.js';
import { CONFIG_HELP, configCommand } from './commands/config.js';
import { LEDGER_HELP, ledgerCommand } from './commands/ledger.js';
import { REPLAY_HELP, replayCommand } from './commands/replay.js';
import { RESUME_HELP, resumeCommand } from './commands/resume.js';
import { DEMO_HELP, demoCommand } from './commands/demo.js';
import { DOCTOR_HELP, doctorCommand } from './commands/doctor.js';
import { ENGINE_HELP, engineCommand } from './commands/engine.js';
import { EXECUTE_HELP, executeCommand } from './commands/execute.js';
import { FIX_HELP, fixCommand } from './commands/fix.js';
import { IMAGE_HELP, imageCommand } from './commands/image.js';
import { INDEX_HELP, indexCommand } from './commands/index-cmd.js';
import { RUN_TEST_HELP, runTestCommand } from './commands/run-test.js';
import { SCHEMA_HELP, schemaCommand } from './commands/schema.js';
import { TOOL_HELP, toolCommand } from './commands/tool.js';
import { TOOLS_HELP, toolsCommand } from './commands/tools.js';
import { UNDO_HELP, undoCommand } from './commands/undo.js';
import { ConfigError, EXIT, UsageError } from './exit-codes.js';
import { errorEvent, jsonOutputRequested, type ErrorKind } from './render/error-output.js';

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; help: string; summary: string }> =
  {
    demo: {
      run: demoCommand,
      help: DEMO_HELP,
      summary: 'fix the bundled sample repository with the scripted model',
    },
    fix: { run: fixCommand, help: FIX_HELP, summary: 'run the agent on an issue of a Python repository' },
    execute: {
      run: executeCommand,
      help: EXECUTE_HELP,
      summary: 'run Python in a fresh sandbox and record it',
    },
    'run-test': {
      run: runTestCommand,
      help: RUN_TEST_HELP,
      summary: 'run tests on a repo snapshot in a fresh sandbox',
    },
    index: {
      run: indexCommand,
      help: INDEX_HELP,
      summary: "list a repository's code entities (the code index)",
    },
    resume: {
      run: resumeCommand,
      help: RESUME_HELP,
      summary: 'continue a run that asked a question (or was interrupted)',
    },
    replay: {
      run: replayCommand,
      help: REPLAY_HELP,
      summary: "re-run a recorded run with its model's replies; report divergence",
    },
    ledger: {
      run: ledgerCommand,
      help: LEDGER_HELP,
      summary: 'list runs, show one in full, or export it as JSON',
    },
    config: {
      run: configCommand,
      help: CONFIG_HELP,
      summary: 'print the effective configuration and where each value came from',
    },
    ab: {
      run: abCommand,
      help: AB_HELP,
      summary: 'A/B: the policy loop against the baseline loop on a task set',
    },
    undo: { run: undoCommand, help: UNDO_HELP, summary: 'restore every edit of a run, newest first' },
    tool: {
      run: toolCommand,
      help: TOOL_HELP,
      summary: 'send one call through validation, execution and the trust gate',
    },
    tools: { run: toolsCommand, help: TOOLS_HELP, summary: 'print the tool registry the model chooses from' },
    schema: {
      run: schemaCommand,
      help: SCHEMA_HELP,
      summary: 'print the JSON Schema of the headless output (stream-json, json)',
    },
    doctor: {
      run: doctorCommand,
      help: DOCTOR_HELP,
      summary: 'check engine, image, ledger and model set-up',
    },
    engine: {
      run: engineCommand,
      help: ENGINE_HELP,
      summary: 'find, or install and start, the Docker engine',
    },
    'ci-image': {
      run: ciImageCommand,
      help: CI_IMAGE_HELP,
      summary: 'build or list the image that runs piper-agent in CI',
    },
    image: { run: imageCommand, help: IMAGE_HELP, summary: 'build or list the sandbox image' },
    env: {
      run: envCommand,
      help: ENV_HELP,
      summary: "the project's environment: plan, build, ls, prune, shell",
    },
  };

const HELP = `piper-agent — a coding agent for Python repositories whose every command runs in a
hardened Docker sandbox and whose every result is backed by a SQLite ledger.

Usage: piper-agent <command> [options]      piper-agent <command> --help

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Exit status: 0 ok, 1 failure, 2 bad usage or configuration, 3 needs input (fix), 4 not fixed (fix),
5 no Docker engine reachable, 130 interrupted. Each command's --help says what its codes mean.
Environment: DOCKER_HOST (engine), PIPER_LEDGER (ledger file).`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    process.stdout.write(`${topic && COMMANDS[topic] ? COMMANDS[topic].help : HELP}\n`);
    return EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`piper-agent: unknown command '${name}'\n\n${HELP}\n`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    const failure = report(error, command.help);
    if (jsonOutputRequested(rest)) {
      const { kind, message, fix, code } = failure;
      process.stdout.write(`${JSON.stringify(errorEvent(kind, message, code, fix))}\n`);
    }
    return failure.code;
  }
}

/**
 * Error text can quote what came from outside (an issue, a file, a build step's output): made
 * inert, like everything else piper writes to a terminal.
 */
function say(text: string): void {
  process.stderr.write(inert(text));
}

interface Failure {
  kind: ErrorKind;
  message: string;
  fix?: string;
  code: number;
}

/** Says what failed and what to do on stderr; returns the same as data for the JSON formats. */
function report(error: unknown, help: string): Failure {
  const failure = classify(error);
  const { kind, message, fix } = failure;
  if (kind === 'usage') say(`piper-agent: ${message}\n\n${help}\n`);
  else if (kind === 'internal')
    say(`piper-agent: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  else {
    say(`piper-agent: ${message}\n`);
    if (fix) say(`  fix: ${fix}\n`);
    if (isRuntimeError(error) && error.kind === 'env_build_failed')
      say('  or: run with `--env base` to go on in the bare sandbox image\n');
  }
  return failure;
}

function classify(error: unknown): Failure {
  const code = (error as { code?: string }).code;
  if (error instanceof ConfigError) return { kind: 'config', message: error.message, code: EXIT.usage };
  if (error instanceof UsageError || code?.startsWith('ERR_PARSE_ARGS'))
    return { kind: 'usage', message: (error as Error).message, code: EXIT.usage };
  if (isModelError(error, 'config'))
    return { kind: 'config', message: error.message, fix: error.fix, code: EXIT.usage };
  if (error instanceof IndexError) {
    const exit = error.kind === 'repo_unreadable' ? EXIT.usage : EXIT.failure;
    return { kind: 'setup', message: error.message, fix: error.fix, code: exit };
  }
  if (isEnvPlanError(error))
    return { kind: 'setup', message: error.message, fix: error.fix, code: EXIT.usage };
  if (error instanceof RepoBusyError) {
    // Another run holds the repository (fix, resume, undo): the operator's to resolve, as a bad flag is.
    return { kind: 'busy', message: error.message, fix: error.fix, code: EXIT.usage };
  }
  if (isRuntimeError(error)) {
    if (error.kind === 'engine_unreachable')
      return { kind: 'engine', message: error.message, fix: error.fix, code: EXIT.noEngine };
    // An environment that cannot be built, or a sandbox runtime the engine lacks, is set-up, as a
    // bad flag is: exit 2.
    const setup = error.kind === 'env_build_failed' || error.kind === 'runtime_unavailable';
    return {
      kind: setup ? 'setup' : 'engine',
      message: error.message,
      fix: error.fix,
      code: setup ? EXIT.usage : EXIT.failure,
    };
  }
  // A ledger that fails after it opened (a damaged page, a full disk): one line, not a stack.
  const ledger = sqliteFailure(error);
  if (ledger) return { kind: 'ledger', message: ledger.message, code: EXIT.failure };
  return { kind: 'internal', message: (error as Error)?.message ?? String(error), code: EXIT.failure };
}

process.exitCode = await main(process.argv.slice(2));
