// The dependency phase's core (networked; never any repository code): every requirement met from
// pip (the user's sources, or pip's default index) and then, for whatever is still unmet, from
// Debian's packages by their PyPI → Debian name. Best effort unless strict: a requirement no source
// meets at its specifier is installed at the nearest version a source has (`relaxed`), one no
// source has at all is left out (`missing`), and the build goes on; each is a Shortfall, recorded.
// Versions are read from metadata files (installed-versions.ts), never from a Python.
import type { ResolvedPackage } from '../ledger/environments.js';
import type { BuildBox, StepResult } from './build-box.js';
import { parseVersionsScan, versionsScanStep } from './installed-versions.js';
import { nearestVersion } from './nearest-version.js';
import { readPipFailure, type PipFailure } from './pip-failure.js';
import { pipSourceEnv, type PipSettings } from './pip-settings.js';
import { pipRequirementLine } from './plan/pip-line.js';
import type { EnvPlan, PlannedRequirement } from './plan/types.js';
import type { Shortfall } from './shortfall.js';
import { indexProbeStep, pipStep } from './steps.js';
import { pipRequirements } from './direct-references.js';
import { dpkgLines, lastLines, missingLines, normalize, pipReport, unsatisfied } from './step-output.js';

export interface RequirementsContext {
  plan: EnvPlan;
  pip: PipSettings;
  /** The user's wheel directories as the build container sees them. */
  userWheelDirs: string[];
  /** Whether the repository's direct-URL requirements may go to pip (see BuildInput.trustUrls). */
  trustUrls: boolean;
  /** Normalized names the repository's own wheelhouse provides: installed later, offline. */
  fromRepoWheels: Set<string>;
  strict: boolean;
  /** What was installed, by normalized name (or `deb:PACKAGE`); filled in here. */
  resolved: Map<string, ResolvedPackage>;
  /** What each source gave, in order; filled in here. */
  sources: string[];
  fail: (message: string, fix: string) => never;
  check: (step: StepResult, what: string) => void;
  /** An apt step through the build's list and package cache. */
  apt: (name: string, packages: string[]) => Promise<StepResult>;
}

export interface RequirementsOutcome {
  shortfalls: Shortfall[];
  /** What the venv and Debian's directories hold now: normalized name → version. */
  versions: Map<string, string>;
}

export async function satisfyRequirements(
  box: BuildBox,
  ctx: RequirementsContext,
): Promise<RequirementsOutcome> {
  const { plan, resolved, sources } = ctx;
  const wanted = plan.requirements.filter((q) => !ctx.fromRepoWheels.has(q.normalized));
  if (!wanted.length) return { shortfalls: [], versions: await scanVersions(box, plan) };
  const direct = pipRequirements(wanted, ctx.trustUrls);
  if (direct.said) sources.push(direct.said);
  const pip = await pipBestEffort(box, ctx, direct.requirements);
  sources.push(`pip: ${pip.said}`);

  const relaxedByPip = new Set(pip.relaxed.map((q) => q.normalized));
  const unmetOf = (v: Map<string, string>) =>
    unsatisfied(wanted, Object.fromEntries(v)).filter((q) => !relaxedByPip.has(q.normalized));
  let versions = await scanVersions(box, plan);
  let unmet = unmetOf(versions);
  const debianSaid = await debianForUnmet(ctx, unmet);
  if (unmet.some((q) => q.debian)) {
    // Debian was asked: what the venv and Debian's directories hold may have changed.
    versions = await scanVersions(box, plan);
    unmet = unmetOf(versions);
  }
  const said = (q: PlannedRequirement) => {
    const have = versions.get(q.normalized);
    const deb = debianSaid.get(q.normalized) ?? 'not tried';
    const debText =
      have && q.debian && deb === q.debian ? `${q.debian} gives ${have}, which does not satisfy it` : deb;
    const pipText = `${direct.byName.has(q.normalized) ? 'by its name (its URL not fetched: a repository you have not trusted): ' : ''}${pip.saidOf.get(q.normalized) ?? pip.said}`;
    return `pip: ${pipText}; debian: ${debText}`;
  };
  if (ctx.strict && (unmet.length || pip.relaxed.length))
    strictFailure(ctx, [...pip.relaxed, ...unmet], said);
  recordResolved(wanted, versions, pip.installed, resolved);
  const shortfalls: Shortfall[] = [
    ...pip.relaxed.map((q) => shortfallOf(q, 'relaxed', versions.get(q.normalized) ?? null, 'pip', said(q))),
    ...unmet.map((q) => {
      const got = versions.get(q.normalized) ?? null;
      return shortfallOf(
        q,
        got ? 'relaxed' : 'missing',
        got,
        got ? sourceOf(q, pip.installed, resolved) : null,
        said(q),
      );
    }),
  ];
  return { shortfalls, versions };
}

/**
 * Debian for what pip left unmet: each one's package, where one is known, installed in one go;
 * per requirement, what Debian said (keyed by normalized name).
 */
async function debianForUnmet(
  ctx: RequirementsContext,
  unmet: PlannedRequirement[],
): Promise<Map<string, string>> {
  const { plan, resolved, sources } = ctx;
  const debianSaid = new Map<string, string>();
  const mapped = unmet.filter((q) => q.debian);
  for (const q of unmet)
    if (!q.debian) debianSaid.set(q.normalized, `no Debian package is known for ${q.name}`);
  if (!mapped.length) return debianSaid;
  const pkgs = [...new Set(mapped.map((q) => q.debian!))];
  const r = await ctx.apt('debian', pkgs);
  ctx.check(r, 'debian');
  const missing = new Set(missingLines(r.stdout));
  const installed = dpkgLines(r.stdout);
  for (const [pkg, version] of installed)
    resolved.set(`deb:${pkg}`, { name: pkg, version, source: 'debian' });
  for (const q of mapped)
    debianSaid.set(
      q.normalized,
      missing.has(q.debian!) ? `${q.debian} is not in Debian ${plan.debian}` : q.debian!,
    );
  sources.push(`debian: ${installed.map(([p, v]) => `${p} ${v}`).join(', ') || 'nothing installable'}`);
  return debianSaid;
}

function strictFailure(
  ctx: RequirementsContext,
  unmet: PlannedRequirement[],
  said: (q: PlannedRequirement) => string,
): never {
  const lines = unmet.map(
    (q) => `  ${q.name}${q.specifier ? ` ${q.specifier}` : ''} (from ${q.from}): ${said(q)}`,
  );
  return ctx.fail(
    `cannot satisfy ${unmet.length} requirement(s) in any source (strict):\n${lines.join('\n')}`,
    'serve the packages from an index (PIP_INDEX_URL, or index_url in .piper/sandbox.toml), a wheelhouse (PIP_FIND_LINKS, or find_links), relax the specifier, or build best effort (no `strict`)',
  );
}

interface PipOutcome {
  said: string;
  /** Per requirement, when pip said something about it in particular. */
  saidOf: Map<string, string>;
  installed: Set<string>;
  /** Installed by pip at another version than asked (best effort). */
  relaxed: PlannedRequirement[];
}

/**
 * pip over the requirements, as one resolution; when it fails on one requirement with no matching
 * version, that one is retried at the nearest version pip listed (best effort) or handed to Debian,
 * and the rest installed again. An unreachable index stops pip at once: Debian follows.
 */
async function pipBestEffort(
  box: BuildBox,
  ctx: RequirementsContext,
  toPip: PlannedRequirement[],
): Promise<PipOutcome> {
  const out: PipOutcome = {
    said: 'nothing to install',
    saidOf: new Map(),
    installed: new Set(),
    relaxed: [],
  };
  const lines = new Map(toPip.map((q) => [q.normalized, pipRequirementLine(q)]));
  const env = pipSourceEnv(ctx.pip, ctx.userWheelDirs);
  const where = ctx.pip.defaultIndex ? "pip's default index" : 'your pip sources';
  const probe = await box.run(indexProbeStep(env));
  const unreachable = probe.stdout.split('\n').filter((l) => l.startsWith('piper-unreachable '));
  const reached = /^piper-reached (\d+)$/m.exec(probe.stdout);
  const anyFindLinks = ctx.userWheelDirs.length > 0 || ctx.pip.findLinkUrls.length > 0;
  if (reached?.[1] === '0' && !anyFindLinks) {
    out.said = `${where} not reachable (${unreachable[0]?.slice('piper-unreachable '.length) ?? 'no answer'}); not tried`;
    return out;
  }
  for (let attempt = 0; lines.size && attempt <= toPip.length + 1; attempt++) {
    const r = await box.run(pipStep([...lines.values()], env, ctx.pip.redactor));
    if (r.exit_code === 0) {
      for (const p of pipReport(r.stdout)) {
        out.installed.add(normalize(p.name));
        ctx.resolved.set(normalize(p.name), { name: p.name, version: p.version, source: 'pip' });
      }
      out.said = `installed ${out.installed.size} distribution(s) from ${where}`;
      return out;
    }
    const failure = readPipFailure(r.output_tail);
    if (failure.kind === 'unreachable') {
      out.said = `${where} not reachable (${failure.line}); not tried further`;
      return out;
    }
    if (failure.kind === 'other') {
      out.said = `failed (${lastLines(r.output_tail, 1).replace(/^ERROR: /, '')})`;
      return out;
    }
    retryNearestOrDrop(failure, toPip, lines, ctx, out);
  }
  out.said = lines.size ? 'gave up after one retry per requirement' : 'nothing it could install';
  return out;
}

/**
 * pip found no version of one requirement: ours and a version near the asked one, retry at that
 * version (relaxed); otherwise drop it from pip's lines.
 */
function retryNearestOrDrop(
  failure: Extract<PipFailure, { kind: 'not_found' }>,
  toPip: PlannedRequirement[],
  lines: Map<string, string>,
  ctx: RequirementsContext,
  out: PipOutcome,
): void {
  const key = normalize(failure.name);
  const q = toPip.find((x) => x.normalized === key);
  const nearest = q && !ctx.strict && !q.url ? nearestVersion(q.specifier, failure.versions) : null;
  if (q && nearest && lines.get(key) !== `${q.name}==${nearest}`) {
    lines.set(key, `${q.name}${q.extras.length ? `[${q.extras.join(',')}]` : ''}==${nearest}`);
    out.relaxed.push(q);
    out.saidOf.set(key, `no version meets ${q.specifier}; has ${failure.versions.slice(-5).join(', ')}`);
  } else {
    // Not ours (a dependency of one of ours) or nothing near: leave it to Debian.
    lines.delete(
      q ? key : ([...lines.keys()].find((k) => lines.get(k)?.startsWith(failure.requirement)) ?? key),
    );
    out.saidOf.set(
      key,
      failure.versions.length
        ? `no version meets it; has ${failure.versions.slice(-5).join(', ')}`
        : 'no such distribution',
    );
    if (!q) out.said = `a dependency, ${failure.requirement}, has no matching version`;
  }
}

async function scanVersions(box: BuildBox, plan: EnvPlan): Promise<Map<string, string>> {
  const r = await box.run(versionsScanStep('versions', plan.python));
  return parseVersionsScan(r.stdout);
}

function sourceOf(
  q: PlannedRequirement,
  fromPip: Set<string>,
  resolved: Map<string, ResolvedPackage>,
): string {
  if (fromPip.has(q.normalized)) return 'pip';
  return q.debian && resolved.has(`deb:${q.debian}`) ? 'debian' : 'system';
}

function recordResolved(
  wanted: PlannedRequirement[],
  versions: Map<string, string>,
  fromPip: Set<string>,
  resolved: Map<string, ResolvedPackage>,
): void {
  for (const q of wanted) {
    const version = versions.get(q.normalized);
    if (!resolved.has(q.normalized) && version)
      resolved.set(q.normalized, {
        name: q.name,
        version,
        source: sourceOf(q, fromPip, resolved) as ResolvedPackage['source'],
      });
  }
}

function shortfallOf(
  q: PlannedRequirement,
  kind: Shortfall['kind'],
  got: string | null,
  source: string | null,
  why: string,
): Shortfall {
  return {
    kind,
    name: q.name,
    wanted: q.specifier || q.line,
    got,
    source,
    from: q.from,
    optional: q.optional ?? false,
    why,
  };
}
