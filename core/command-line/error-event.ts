// A failure before a run's result, for a machine reader: with `--output json` or `stream-json`
// (or PIPER_OUTPUT) the CLI writes one `error` object on stdout as well as its text on stderr, so
// a script that reads stdout never sees an empty stream and has to guess from the exit code.
import { z } from 'zod';

export const eventTime = z.iso.datetime().describe('when the event was written, ISO 8601 UTC');

const ERROR_KINDS = ['usage', 'config', 'engine', 'setup', 'busy', 'ledger', 'internal'] as const;

export const errorEventSchema = z.object({
  type: z.literal('error'),
  ts: eventTime,
  error: z.object({
    kind: z.enum(ERROR_KINDS),
    message: z.string(),
    fix: z.string().optional().describe('what to do about it, when piper knows'),
    exit_code: z.number().int(),
  }),
});
export type ErrorEvent = z.infer<typeof errorEventSchema>;

export type ErrorKind = ErrorEvent['error']['kind'];

/** Whether the command line (or the environment) asked for a JSON output format. */
export function jsonOutputRequested(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  let format: string | undefined = env.PIPER_OUTPUT;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--output') format = argv[i + 1];
    else if (arg.startsWith('--output=')) format = arg.slice('--output='.length);
  }
  return format === 'json' || format === 'stream-json';
}

export function errorEvent(
  kind: ErrorKind,
  message: string,
  exitCode: number,
  fix?: string,
  now: Date = new Date(),
): ErrorEvent {
  return {
    type: 'error',
    ts: now.toISOString(),
    error: { kind, message, ...(fix ? { fix } : {}), exit_code: exitCode },
  };
}
