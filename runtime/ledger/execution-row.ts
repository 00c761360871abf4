// An executions row, declared once: one sandbox run's receipt as the ledger keeps it (booleans as
// SQLite integers, the limits as JSON text), beside the call it answers.
import { z } from 'zod';

/**
 * The executions table's columns, in its order.
 * @public the one declaration of this shape: its type is derived from it, a reader may parse with it
 */
export const executionRowSchema = z.object({
  call_id: z.string(),
  image: z.string(),
  image_digest: z.string(),
  container_id: z.string(),
  warm: z.int(),
  /** JSON of the limits the container ran under. */
  limits: z.string(),
  create_ms: z.number().nullable(),
  start_ms: z.number().nullable(),
  run_ms: z.number().nullable(),
  total_ms: z.number().nullable(),
  exit_code: z.int(),
  timed_out: z.int(),
  oom_killed: z.int(),
  stdout: z.string(),
  stderr: z.string(),
  stdout_bytes: z.int(),
  stderr_bytes: z.int(),
  stdout_sha256: z.string(),
  stderr_sha256: z.string(),
  stdout_truncated: z.int(),
  stderr_truncated: z.int(),
  created_at: z.string(),
  /** The project environment the call ran in; null: the bare sandbox image. */
  env_key: z.string().nullable(),
  /**
   * Why the program was killed when the engine cannot say (a SIGKILL on an engine that does not
   * report OOM kills: Podman before 5); null otherwise.
   */
  kill_reason: z.string().nullable(),
});
export type ExecutionRow = z.output<typeof executionRowSchema>;
