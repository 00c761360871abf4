// piper-agent's command line (cli/entry-point.ts over the product's command table). No agent logic
// lives here, and nothing heavy is imported before a command is chosen (see commands/index.ts).
// `ab` is listed but is the evaluation's program (eval/main.ts): bin/piper-agent.js starts that
// entry for it, so the product never imports the evaluation.
import { runCommandLine } from '../core/command-line/entry-point.js';
import { COMMANDS } from './commands/index.js';

const HELP = `piper-agent — a coding agent for Python repositories whose every command runs in a
hardened Docker sandbox and whose every result is backed by a SQLite ledger.

Usage: piper-agent <command> [options]      piper-agent <command> --help

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Evaluation (eval/):
  ${'ab'.padEnd(10)} A/B: the policy loop against the baseline loop on a task set

Exit status: 0 ok, 1 failure, 2 bad usage or configuration, 3 needs input (fix), 4 not fixed (fix),
5 no Docker engine reachable, 130 interrupted. Each command's --help says what its codes mean.
Environment: DOCKER_HOST (engine), PIPER_LEDGER (ledger file).`;

process.exitCode = await runCommandLine(process.argv.slice(2), { commands: COMMANDS, help: HELP });
