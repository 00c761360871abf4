// piper-agent's command line: picks the command, loads only that command's module, maps failures
// to documented exit codes, and prints every error with what to do about it. No agent logic lives
// here, and nothing heavy is imported before a command is chosen (see commands/index.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../runtime/package-root.js';
import { COMMANDS } from './commands/index.js';
import { EXIT, InterruptedRun } from './exit-codes.js';
import { didYouMean } from './suggest.js';

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
    const entry = topic === undefined ? undefined : COMMANDS[topic];
    process.stdout.write(`${entry ? (await entry.load()).help : HELP}\n`);
    return EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    // One line: the command that was meant, or where the commands are listed — not the whole help.
    const hint = didYouMean(name, Object.keys(COMMANDS)) || '; piper-agent --help lists the commands';
    process.stderr.write(`piper-agent: unknown command '${name}'${hint}\n`);
    return EXIT.usage;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    // The interrupt handler has said everything and exits the process once its clean-up is done.
    if (error instanceof InterruptedRun) return error.exitCode;
    const { reportError } = await import('./report-error.js');
    const failure = reportError(error, name, command.help);
    const { errorEvent, jsonOutputRequested } = await import('./render/error-output.js');
    if (jsonOutputRequested(rest)) {
      const { kind, message, fix, code } = failure;
      process.stdout.write(`${JSON.stringify(errorEvent(kind, message, code, fix))}\n`);
    }
    return failure.code;
  }
}

process.exitCode = await main(process.argv.slice(2));
