// A command line over a command table: picks the command, loads only that command's module, maps
// failures to documented exit codes, and prints every error with what to do about it. The product's
// table is cli/commands/index.ts (cli/main.ts); the evaluation's (`ab`) is eval/main.ts, a program
// of its own that the product never imports, run by the same installed command. Below cli/, so the
// evaluation's command line uses it without importing the UI.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../runtime/package-root.js';
import { guardStream } from '../../runtime/text/output-guard.js';
import { EXIT, InterruptedRun } from '../exit-codes.js';
import { didYouMean } from '../suggest.js';
import { inertJson } from '../../runtime/text/inert.js';

interface LoadedCommand {
  run: (argv: string[]) => Promise<number>;
  help: string;
  /** Help of a subcommand with flags of its own (`ab validate --help`), by its name. */
  subcommandHelp?: Record<string, string>;
}

export interface CommandEntry {
  summary: string;
  load: () => Promise<LoadedCommand>;
}

export interface CommandLine {
  commands: Record<string, CommandEntry>;
  /** The text of `piper-agent --help`. */
  help: string;
}

export async function runCommandLine(argv: string[], line: CommandLine): Promise<number> {
  const { commands } = line;
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const entry = topic === undefined ? undefined : commands[topic];
    process.stdout.write(`${entry ? (await entry.load()).help : line.help}\n`);
    return EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return EXIT.ok;
  }
  const entry = commands[name];
  if (!entry) {
    // One line: the command that was meant, or where the commands are listed — not the whole help.
    const hint = didYouMean(name, Object.keys(commands)) || '; piper-agent --help lists the commands';
    process.stderr.write(`piper-agent: unknown command '${name}'${hint}\n`);
    return EXIT.usage;
  }
  // One redaction for every output: the ledger's secrets are masked on both streams too.
  guardStream(process.stdout);
  guardStream(process.stderr);
  // Loaded with the command, not before: reading the user's uv.toml takes a TOML parser, which
  // --help and --version never need.
  const { guardUserPipSecrets } = await import('../../runtime/env/plan/pip-settings.js');
  guardUserPipSecrets(process.env);
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    const sub = rest[0] === undefined ? undefined : command.subcommandHelp?.[rest[0]];
    process.stdout.write(`${sub ?? command.help}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    // The interrupt handler has said everything and exits the process once its clean-up is done.
    if (error instanceof InterruptedRun) return error.exitCode;
    const { reportError } = await import('./report-error.js');
    const failure = reportError(error, name, command.help);
    const { errorEvent, jsonOutputRequested } = await import('./error-event.js');
    if (jsonOutputRequested(rest)) {
      const { kind, message, fix, code } = failure;
      process.stdout.write(`${inertJson(JSON.stringify(errorEvent(kind, message, code, fix)))}\n`);
    }
    return failure.code;
  }
}
