// The ledger's environments row of one environment choice (ensure.ts): its clock, and the row of a
// hit, a build, a failed build or a choice with nothing to build — every string of it through the
// build's redactor, so nothing recorded holds a credential.
import { recordEnvironment, type EnvironmentRow, type EnvironmentStatus } from '../../ledger/environments.js';
import type { Ledger } from '../../ledger/ledger.js';
import { EnvBuildError } from '../build/build-error.js';
import type { buildEnvironment } from '../build/builder.js';
import { redactPlan } from '../plan/render.js';
import type { EnvPlan } from '../plan/types.js';
import { URL_REDACTOR, type Redactor } from '../plan/secrets.js';
import type { Shortfall } from '../build/shortfall.js';

/** The clock of one choice and its ledger row, every string of it through the build's redactor. */
export class ChoiceRecord {
  private readonly t0 = Date.now();
  redactor: Redactor = URL_REDACTOR;

  constructor(private readonly input: { ledger: Ledger | null; repoRoot: string }) {}

  seconds(): number {
    return (Date.now() - this.t0) / 1000;
  }

  write(row: Omit<EnvironmentRow, 'repo' | 'seconds'>): void {
    if (this.input.ledger)
      recordEnvironment(
        this.input.ledger,
        redactRow(this.redactor, { ...row, repo: this.input.repoRoot, seconds: this.seconds() }),
      );
  }
}

/** The row of a finished build. */
export function recordBuilt(
  rec: ChoiceRecord,
  plan: EnvPlan,
  baseImageId: string,
  key: string,
  built: Awaited<ReturnType<typeof buildEnvironment>>,
): void {
  rec.write({
    key,
    status: 'built',
    image: built.imageRef,
    imageId: built.imageId,
    baseImageId,
    sizeBytes: built.sizeBytes,
    inputs: plan.inputs,
    decisions: plan.decisions,
    plan: planRecord(plan),
    steps: built.steps,
    resolved: built.resolved,
    sources: built.sources,
    shortfalls: built.shortfalls,
    error: null,
  });
}

/** The row of a failed build, with what its steps said; the error's message is redacted in place. */
export function recordFailure(
  rec: ChoiceRecord,
  at: { plan: EnvPlan; baseImageId: string; key: string; ref: string },
  error: unknown,
  redactor: Redactor,
): void {
  const { plan } = at;
  rec.write({
    key: at.key,
    status: 'failed',
    image: at.ref,
    imageId: null,
    baseImageId: at.baseImageId,
    sizeBytes: null,
    inputs: plan.inputs,
    decisions: plan.decisions,
    plan: planRecord(plan),
    steps: error instanceof EnvBuildError ? error.steps : [],
    resolved: [],
    sources: error instanceof EnvBuildError ? error.sources : [],
    shortfalls: [],
    error: redactor.text((error as Error).message),
  });
  if (error instanceof Error) error.message = redactor.text(error.message);
}

/** The plan as recorded: credentials in index URLs, find-links and requirement URLs removed. */
function planRecord(plan: EnvPlan): EnvPlan {
  return redactPlan(plan);
}

export function emptyRow(
  status: EnvironmentStatus,
  key: string | null,
  image: string,
  imageId: string | null,
  decisions: string[],
  plan?: EnvPlan,
) {
  return {
    key,
    status,
    image,
    imageId,
    baseImageId: null,
    sizeBytes: null,
    inputs: plan?.inputs ?? [],
    decisions,
    plan: plan ? planRecord(plan) : null,
    steps: [],
    resolved: [],
    sources: [],
    shortfalls: [] as Shortfall[],
    error: null,
  };
}

/** Every string of a row through the build's redactor: nothing recorded holds a credential. */
function redactRow<T>(redactor: Redactor, row: T): T {
  return JSON.parse(redactor.text(JSON.stringify(row))) as T;
}
