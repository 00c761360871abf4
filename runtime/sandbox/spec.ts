// What a sandbox run is asked to do (RunSpec) and what it gives back (Receipt). The receipt's
// field names are the ones the ledger stores and `piper-agent execute --json` prints.
import type { Readable } from 'node:stream';
import { z } from 'zod';

export interface Limits {
  /** CPU quota in cores (NanoCpus). */
  cpus: number;
  /** Memory in MiB; memory+swap is set to the same, so there is no swap. */
  memoryMb: number;
  /** Maximum number of processes and threads in the container. */
  pids: number;
  /** Wall time in seconds, from start to exit; past it the container is killed. */
  timeoutS: number;
  /** Bytes of each stream kept in the receipt (half head, half tail); the rest is counted and hashed. */
  outputCapBytes: number;
  /** Size of the writable tmpfs at /tmp, /var/tmp and the work dir, MiB each. */
  tmpfsMb: number;
}

export const DEFAULT_LIMITS: Limits = {
  cpus: 1,
  memoryMb: 512,
  pids: 128,
  timeoutS: 30,
  outputCapBytes: 64 * 1024,
  tmpfsMb: 64,
};

export interface RunSpec {
  image: string;
  argv: string[];
  /** Bytes written to the process's stdin, then closed (the program for `execute`). */
  stdin?: string | Buffer;
  /** A tar stream unpacked into the work dir before argv runs (the repository for run_test, execute). */
  workspace?: Readable;
  /**
   * With a workspace: Python source the entry point runs as __main__ in the work dir instead of
   * argv (execute). It travels in the header line ahead of the tar, as argv does.
   */
  program?: string;
  /**
   * With a program: the path the entry point writes it to, then runs argv instead of the program
   * as Python (a JavaScript repository's execute: node runs the file).
   */
  programFile?: string;
  /**
   * With a workspace: variables the entry point sets before the command (run_test's test
   * variables). In the header, not the container's config, so a pooled container serves them.
   */
  workspaceEnv?: Record<string, string>;
  limits?: Partial<Limits>;
  env?: string[];
  /** Labels naming the run and the call; owner labels are added by the sandbox. */
  labels?: { run?: string; call?: string };
}

const TimingsSchema = z.object({
  create_ms: z.number(),
  start_ms: z.number(),
  run_ms: z.number(),
  total_ms: z.number(),
});

/**
 * @public the one declaration of this shape: its type is derived from it, a reader may parse with it
 */
export const ReceiptSchema = z.object({
  exit_code: z.number().int(),
  timed_out: z.boolean(),
  oom_killed: z.boolean(),
  /**
   * Present only where the engine cannot say why a container was killed (Podman before 5.0 on a
   * memory kill): what is known instead. Absent on Docker, whose receipts are unchanged.
   */
  kill_reason: z.string().optional(),
  stdout: z.string(),
  stderr: z.string(),
  stdout_bytes: z.number().int(),
  stderr_bytes: z.number().int(),
  stdout_sha256: z.string(),
  stderr_sha256: z.string(),
  stdout_truncated: z.boolean(),
  stderr_truncated: z.boolean(),
  timings: TimingsSchema,
  container_id: z.string(),
  image: z.string(),
  image_digest: z.string(),
  warm: z.boolean(),
  limits: z.object({
    cpus: z.number(),
    memoryMb: z.number(),
    pids: z.number(),
    timeoutS: z.number(),
    outputCapBytes: z.number(),
    tmpfsMb: z.number(),
  }),
});

export type Receipt = z.infer<typeof ReceiptSchema>;

export function resolveLimits(partial: Partial<Limits> | undefined): Limits {
  const limits = { ...DEFAULT_LIMITS, ...stripUndefined(partial ?? {}) };
  const positive: Array<keyof Limits> = ['cpus', 'memoryMb', 'pids', 'timeoutS', 'outputCapBytes', 'tmpfsMb'];
  for (const key of positive) {
    if (!(Number.isFinite(limits[key]) && limits[key] > 0)) {
      throw new RangeError(`limit ${key} must be a positive number, got ${limits[key]}`);
    }
  }
  if (limits.memoryMb < 6)
    throw new RangeError('limit memoryMb must be at least 6 (the engine refuses less)');
  return limits;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
