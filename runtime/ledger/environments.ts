// The environments table (migration 5): one row each time a command chose the environment its
// sandboxes run in — built, reused (hit), the bare sandbox image, a user-provided image, or a build
// that failed. The JSON columns are written by runtime/env; nothing here holds a credential (the
// builder redacts before it records).
import type { Ledger } from './ledger.js';

export type EnvironmentStatus = 'built' | 'hit' | 'base' | 'user' | 'failed';

export interface EnvironmentStep {
  name: string;
  /** The command as run, credentials redacted. */
  command: string;
  /** The network the step's container had: `host`, `bridge` or `none`. */
  network: string;
  exit_code: number;
  seconds: number;
  /** The end of its output, for a person reading why a build failed. */
  output_tail: string;
}

export interface ResolvedPackage {
  name: string;
  version: string;
  /** Where it came from: pip (an index or wheelhouse), debian (apt), system (already in the image). */
  source: 'pip' | 'debian' | 'system' | 'project';
  /** The sha256 of the file it was installed from, when a lockfile's hash was checked (a locked install). */
  sha256?: string;
}

export interface EnvironmentRow {
  key: string | null;
  repo: string;
  status: EnvironmentStatus;
  image: string;
  imageId: string | null;
  baseImageId: string | null;
  sizeBytes: number | null;
  seconds: number;
  inputs: unknown;
  decisions: string[];
  plan: unknown;
  steps: EnvironmentStep[];
  resolved: ResolvedPackage[];
  sources: string[];
  /** What best effort relaxed or left out (a later migration), one object per requirement. */
  shortfalls: unknown[];
  error: string | null;
}

export function recordEnvironment(ledger: Ledger, row: EnvironmentRow): number {
  const result = ledger.database
    .prepare(
      `INSERT INTO environments (key, repo, status, image, image_id, base_image_id, size_bytes, seconds,
         inputs, decisions, plan, steps, resolved, sources, shortfalls, error, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.key,
      row.repo,
      row.status,
      row.image,
      row.imageId,
      row.baseImageId,
      row.sizeBytes,
      row.seconds,
      JSON.stringify(row.inputs),
      JSON.stringify(row.decisions),
      JSON.stringify(row.plan),
      JSON.stringify(row.steps),
      JSON.stringify(row.resolved),
      JSON.stringify(row.sources),
      JSON.stringify(row.shortfalls),
      row.error,
      new Date().toISOString(),
    );
  return Number(result.lastInsertRowid);
}

/**
 * The newest successful build of a key (what a cache hit reports as its resolved versions and
 * shortfalls). Newest by when the row was written (`created_at`), the id only between rows of the
 * same moment: an id is whatever the row was inserted with, and a row with the largest one would
 * otherwise outlive every rebuild. A row stamped later than now was not written by this clock.
 */
export function lastBuildOf(ledger: Ledger, key: string, now = new Date()): EnvironmentRow | undefined {
  const row = ledger.database
    .prepare(
      `SELECT * FROM environments WHERE key = ? AND status = 'built' AND created_at <= ?
        ORDER BY created_at DESC, id DESC LIMIT 1`,
    )
    .get(key, now.toISOString()) as Record<string, unknown> | undefined;
  return row ? fromStored(row) : undefined;
}

export function listEnvironments(
  ledger: Ledger,
  limit = 50,
): Array<EnvironmentRow & { id: number; createdAt: string }> {
  const rows = ledger.database
    .prepare(`SELECT * FROM environments ORDER BY created_at DESC, id DESC LIMIT ?`)
    .all(limit) as Array<Record<string, unknown>>;
  return rows.map((r) => ({ ...fromStored(r), id: r.id as number, createdAt: r.created_at as string }));
}

function fromStored(r: Record<string, unknown>): EnvironmentRow {
  const json = (v: unknown) => JSON.parse(String(v)) as never;
  return {
    key: (r.key as string | null) ?? null,
    repo: r.repo as string,
    status: r.status as EnvironmentStatus,
    image: r.image as string,
    imageId: (r.image_id as string | null) ?? null,
    baseImageId: (r.base_image_id as string | null) ?? null,
    sizeBytes: (r.size_bytes as number | null) ?? null,
    seconds: r.seconds as number,
    inputs: json(r.inputs),
    decisions: json(r.decisions),
    plan: json(r.plan),
    steps: json(r.steps),
    resolved: json(r.resolved),
    sources: json(r.sources),
    shortfalls: r.shortfalls ? json(r.shortfalls) : [],
    error: (r.error as string | null) ?? null,
  };
}
