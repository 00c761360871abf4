// The headless output contract: what `--output stream-json` writes (one object per line) and what
// `--output json` writes (the result object alone, or the error object). Built from the loop's own
// event schemas (policy/events.ts) plus what the headless sink adds: a `ts` on every line, the
// schema version on `init`, the `interrupted` outcome of a run stopped by a signal, and the `error`
// object of a failure before the run started. `piper-agent schema` prints it as JSON Schema.
import { z } from 'zod';
import { loopEventSchemas } from '../../policy/events.js';
import { STREAM_SCHEMA_VERSION } from './stream-version.js';
import { errorEventSchema, eventTime as ts } from '../../core/command-line/error-event.js';

export { errorEventSchema };

export { STREAM_SCHEMA_VERSION };

const resultEventSchema = loopEventSchemas.result.extend({ ts });
const e = loopEventSchemas;
export const streamEventSchema = z.discriminatedUnion('type', [
  e.init.extend({ ts, schema: z.literal(STREAM_SCHEMA_VERSION) }),
  e.environment.extend({ ts }),
  e.index.extend({ ts }),
  e.turn.extend({ ts }),
  e.toolset.extend({ ts }),
  e.proposal.extend({ ts }),
  e.rejection.extend({ ts }),
  e.noop.extend({ ts }),
  e.execution.extend({ ts }),
  e.observation.extend({ ts }),
  e.usage.extend({ ts }),
  e.ask_user.extend({ ts }),
  e.answer.extend({ ts }),
  e.suite.extend({ ts }),
  resultEventSchema,
  errorEventSchema,
]);
/** `--output json` prints exactly one object: the run's result, or the error that stopped it first. */
export const jsonOutputSchema = z.discriminatedUnion('type', [resultEventSchema, errorEventSchema]);

export const OUTPUT_SCHEMAS = { stream: streamEventSchema, result: jsonOutputSchema } as const;
export type OutputSchemaName = keyof typeof OUTPUT_SCHEMAS;

/** The JSON Schema of one output, generated from the zod schemas above. */
export function outputJsonSchema(name: OutputSchemaName): Record<string, unknown> {
  return {
    title: `piper-agent ${name} output, ${STREAM_SCHEMA_VERSION}`,
    ...z.toJSONSchema(OUTPUT_SCHEMAS[name], { target: 'draft-2020-12' }),
  };
}
