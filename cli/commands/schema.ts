// `piper-agent schema [stream|result]`: the JSON Schema of the headless output, generated from the
// zod schemas the CLI itself writes against (cli/render/stream-schema.ts), so it cannot drift.
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../../core/exit-codes.js';
import {
  OUTPUT_SCHEMAS,
  outputJsonSchema,
  STREAM_SCHEMA_VERSION,
  type OutputSchemaName,
} from '../render/stream-schema.js';

export const SCHEMA_HELP = `Usage: piper-agent schema [stream|result]

Prints the JSON Schema (draft 2020-12) of piper-agent's headless output, version ${STREAM_SCHEMA_VERSION}:

  stream   one line of --output stream-json (default): init (carries "schema"), environment, turn,
           toolset, proposal, rejection, noop, execution, observation, usage, ask_user, answer,
           result, and error; every line has "ts" (ISO 8601 UTC)
  result   the one object --output json writes: the run's result, or the error that stopped it
           before it had one`;

export async function schemaCommand(argv: string[]): Promise<number> {
  const { positionals } = parseArgs({ args: argv, options: {}, strict: true, allowPositionals: true });
  if (positionals.length > 1) throw new UsageError('give at most one schema name: stream or result');
  const name = positionals[0] ?? 'stream';
  if (!(name in OUTPUT_SCHEMAS)) throw new UsageError(`unknown schema '${name}': stream or result`);
  process.stdout.write(`${JSON.stringify(outputJsonSchema(name as OutputSchemaName), null, 2)}\n`);
  return EXIT.ok;
}
