// The evaluation's command line: `piper-agent ab` (bin/piper-agent.js starts this entry for it).
// It may import every layer of the product; the product never imports it.
import { runCommandLine } from '../cli/command-line.js';

const HELP = `piper-agent ab — the A/B evaluation of the policy loop (piper-agent ab --help).
The agent's own commands: piper-agent --help`;

process.exitCode = await runCommandLine(process.argv.slice(2), {
  commands: {
    ab: {
      summary: 'A/B: the policy loop against the baseline loop on a task set',
      load: async () => {
        const m = await import('./commands/ab.js');
        return { run: m.abCommand, help: m.AB_HELP };
      },
    },
  },
  help: HELP,
});
