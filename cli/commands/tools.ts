// `piper-agent tools [--json]`: the tool registry (policy/registry.ts) as a table, or as the spec's
// JSON view (docs/policy.md, "The tool registry").
import { parseArgs } from 'node:util';
import { registryView } from '../../policy/registry.js';
import { EXIT } from '../../core/exit-codes.js';
import { inert, inertJson } from '../../runtime/text/inert.js';

export const TOOLS_HELP = `Usage: piper-agent tools [--json]

Prints the six tools the agent can call — name, category, description, args with their types,
defaults and caps, what each returns, and the keywords retrieval matches — and the two reserved
names (ask_user, stop) that end a loop segment instead of running anything.

  --json   the registry as one JSON object: {"tools": [...], "reserved": [...]}`;

export async function toolsCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: false,
  });
  const view = registryView();
  if (values.json) {
    process.stdout.write(`${inertJson(JSON.stringify(view, null, 2))}\n`);
    return EXIT.ok;
  }
  const nameWidth = Math.max(
    ...view.tools.map((tool) => tool.name.length),
    ...view.reserved.map((r) => r.name.length),
  );
  const categoryWidth = Math.max('CATEGORY'.length, ...view.tools.map((tool) => tool.category.length));
  const indent = ' '.repeat(nameWidth + categoryWidth + 4);
  const lines = [`${'TOOL'.padEnd(nameWidth)}  ${'CATEGORY'.padEnd(categoryWidth)}  DESCRIPTION`];
  for (const tool of view.tools) {
    lines.push(`${tool.name.padEnd(nameWidth)}  ${tool.category.padEnd(categoryWidth)}  ${tool.description}`);
    const args = Object.entries(tool.args).map(([name, type]) => `${name}: ${type}`);
    lines.push(`${indent}args:     ${args.join(', ')}`);
    lines.push(`${indent}returns:  ${tool.returns}`);
    lines.push(`${indent}keywords: ${tool.keywords.join(', ')}`);
  }
  lines.push('', 'Reserved (not tools: never retrieved or validated; they end the loop segment):');
  for (const reserved of view.reserved) {
    const args = Object.entries(reserved.args).map(([name, type]) => `${name}: ${type}`);
    lines.push(`${reserved.name.padEnd(nameWidth)}  ${reserved.description}  (${args.join(', ')})`);
  }
  process.stdout.write(`${inert(lines.join('\n'))}\n`);
  return EXIT.ok;
}
