// The dependency image kept for the next checkout: the venv, Debian's packages and the repository's
// wheels (and, for compiled parts, the build tools on top) — images no repository build code ran
// in, so they are keyed by the declarations alone (choose/key.ts `declarationsKey`), while the environment
// image built FROM them holds the project layer and is keyed by the whole snapshot. A new checkout
// with the same declarations then costs only the project phase. What the dependency phases said
// (sources, shortfalls, versions, pytest plugins) travels with the image as a label, redacted, so
// a reuse reports what the build that made it found.
import { z } from 'zod';
import type { DockerEngine } from '../../engine/docker-engine.js';
import { BuildBox } from './build-box.js';
import type { BuildContext } from './build-context.js';
import { ENV_LABEL, projectId } from '../floor/names.js';
import { packLabel, unpackLabel } from '../../text/packed-label.js';
import { sourcesLabel } from '../spec/spec-schema.js';

export const DEPS_RECORD_LABEL = 'piper.env.deps-record';

const recordSchema = z.object({
  sources: z.array(z.string()),
  shortfalls: z.array(z.any()),
  resolved: z.array(
    z.object({
      key: z.string(),
      name: z.string(),
      version: z.string(),
      source: z.enum(['pip', 'debian', 'system', 'project']),
    }),
  ),
  pytestPlugins: z.array(z.object({ dist: z.string(), name: z.string(), module: z.string() })),
});

export type DepsPart = 'deps' | 'wheels' | 'tools';
const SAID: Record<DepsPart, string> = {
  deps: 'dependencies',
  wheels: "the repository's wheels",
  tools: 'build tools',
};

function depsRef(ctx: BuildContext, part: DepsPart): { repo: string; tag: string; ref: string } {
  return keptRef(ctx.target.repo, ctx.input.depsKey, part);
}

function keptRef(repo: string, depsKey: string, part: DepsPart): { repo: string; tag: string; ref: string } {
  const tag = `${depsKey.slice(0, 12)}-${part}`;
  return { repo, tag, ref: `${repo}:${tag}` };
}

function depsKeyLabel(ctx: BuildContext, part: DepsPart): string {
  return `${part}-${ctx.input.depsKey}`;
}

/**
 * Whether the dependency image of these declarations and base is on the engine: a build on it
 * downloads nothing unless the project's METADATA names more (the top-up, which finds a gone index
 * itself), so the chooser need not ask the index first.
 */
export async function depsImageKept(
  engine: DockerEngine,
  at: { repo: string; depsKey: string; baseId: string },
): Promise<boolean> {
  const found = await engine.inspectImage(keptRef(at.repo, at.depsKey, 'deps').ref);
  return found?.labels[ENV_LABEL.key] === `deps-${at.depsKey}` && found.labels[ENV_LABEL.base] === at.baseId;
}

/** The kept image of this part when the engine has one for these declarations and base; its record restored. */
export async function reuseDepsImage(ctx: BuildContext, part: DepsPart): Promise<string | null> {
  // `--env rebuild` builds every part again (and fetches Debian's lists again).
  if (ctx.input.refreshAptLists) return null;
  const { ref } = depsRef(ctx, part);
  const found = await ctx.input.engine.inspectImage(ref);
  if (
    !found ||
    found.labels[ENV_LABEL.key] !== depsKeyLabel(ctx, part) ||
    found.labels[ENV_LABEL.base] !== ctx.input.base.id
  )
    return null;
  const parsed = recordSchema.safeParse(decodeRecord(found.labels[DEPS_RECORD_LABEL]));
  if (!parsed.success) return null;
  // The record is everything the build had said when this part was kept: it replaces what is known.
  const record = parsed.data;
  ctx.sources.splice(0, ctx.sources.length, ...record.sources);
  ctx.shortfalls.splice(0, ctx.shortfalls.length, ...(record.shortfalls as typeof ctx.shortfalls));
  ctx.resolved.clear();
  for (const { key, ...pkg } of record.resolved) ctx.resolved.set(key, pkg);
  ctx.pytestPlugins.splice(0, ctx.pytestPlugins.length, ...record.pytestPlugins);
  ctx.sources.push(`${SAID[part]}: reused ${ref} (the same declarations)`);
  return ref;
}

/** Tags `image` as this part's kept image, with the record of what the build said so far. */
export async function keepDepsImage(ctx: BuildContext, image: string, part: DepsPart): Promise<string> {
  const { engine, repoRoot, projectName, base, log, pip } = ctx.input;
  const target = depsRef(ctx, part);
  const record = {
    sources: ctx.sources,
    shortfalls: ctx.shortfalls,
    resolved: [...ctx.resolved].map(([key, pkg]) => ({ key, ...pkg })),
    pytestPlugins: ctx.pytestPlugins,
  };
  // The record's text is the build's words: redacted like every other record of it.
  // Compressed: a large project's versions would make a long label (and one Dockerfile line).
  const encoded = packLabel(pip.redactor.text(JSON.stringify(record)));
  const box = await BuildBox.start(engine, {
    image,
    network: 'none',
    labels: ctx.labels,
    log,
    createOnly: true,
  });
  try {
    await box.commit({
      ...target,
      changes: [
        // One label a line: Podman's commit reads `LABEL a=1 b=2` as one label `a` of value `1 b=2`.
        `LABEL ${ENV_LABEL.key}=${depsKeyLabel(ctx, part)}`,
        `LABEL ${ENV_LABEL.project}=${projectId(repoRoot, projectName)}`,
        `LABEL ${ENV_LABEL.base}=${base.id}`,
        `LABEL ${ENV_LABEL.sources}=${sourcesLabel(ctx.spec.sources)}`,
        `LABEL ${DEPS_RECORD_LABEL}=${encoded}`,
      ],
    });
  } finally {
    await box.remove();
  }
  return target.ref;
}

function decodeRecord(label: string | undefined): unknown {
  const text = label ? unpackLabel(label) : null;
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
