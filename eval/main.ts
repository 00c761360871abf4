// The evaluation's command line: `piper-agent ab` (bin/piper-agent.js starts this entry for it).
// It may import every layer of the product; the product never imports it.
import { runCommandLine } from '../core/command-line/entry-point.js';

const HELP = `piper-agent ab — the A/B evaluation of the policy loop (piper-agent ab --help).
The agent's own commands: piper-agent --help`;

process.exitCode = await runCommandLine(process.argv.slice(2), {
  commands: {
    ab: {
      summary: 'A/B: the policy loop against the baseline loop on a task set',
      load: async () => {
        const [m, validate] = await Promise.all([
          import('./commands/ab.js'),
          import('./swebench/validate-command.js'),
        ]);
        return { run: m.abCommand, help: m.AB_HELP, subcommandHelp: { validate: validate.VALIDATE_HELP } };
      },
    },
  },
  help: HELP,
});
