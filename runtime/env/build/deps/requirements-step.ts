// The dependency phase's core, in two halves. Networked (never any distribution's code): every
// requirement downloaded by pip (the user's sources, or pip's default index; download-round.ts) —
// with sources = index every one, as a clean venv would get it; with sources = debian only what the
// image lacks, from find-links alone — then, for whatever pip could not download, Debian's package
// by its PyPI → Debian name, installed by apt. Offline (no network, no secret): pip installs from
// the downloaded files alone. Best effort unless strict: a requirement no source meets at its
// specifier is installed at the nearest version a source has (`relaxed`), one no source has at all
// is left out (`missing`), and the build goes on; each is a Shortfall, recorded. Versions are read from metadata files (installed-versions.ts).
import type { ResolvedPackage } from '../../../ledger/environments.js';
import type { BuildBox, StepResult } from '../build-box.js';
import { downloadBestEffort, type DownloadContext, type PipOutcome } from './download-round.js';
import { BUILT, DOWNLOADS, offlineInstallStep, type InstallOver } from './download-steps.js';
import { parseVersionsScan, versionsScanStep } from './installed-versions.js';
import type { EnvPlan, PlannedRequirement } from '../../plan/types.js';
import type { Shortfall } from '../shortfall.js';
import { pipRequirements } from './direct-references.js';
import { brokenShortfalls, importCheckStep, parseImportCheck, parseSlowImports } from '../import-check.js';
import { dpkgLines, lastLines, missingLines, normalize, pipReport, unsatisfied } from '../step-output.js';

export interface RequirementsContext extends DownloadContext {
  /** The requirements to meet (the plan's, less what the repository's wheels provide; or a top-up's). */
  wanted: PlannedRequirement[];
  /** The sandbox's Python and Debian release. */
  plan: Pick<EnvPlan, 'python' | 'debian' | 'project'>;
  /** Whether the repository's direct-URL requirements may go to pip (see BuildInput.trustUrls). */
  trustUrls: boolean;
  /** What was installed, by normalized name (or `deb:PACKAGE`); filled in here. */
  resolved: Map<string, ResolvedPackage>;
  fail: (message: string, fix: string) => never;
  check: (step: StepResult, what: string) => void;
  /** Debian's packages installed where the offline install box will start (debian-layer.ts), or in the box. */
  apt: (name: string, packages: string[]) => Promise<StepResult>;
  /** With sources = index: a new venv (`fresh`), or one that holds the dependencies already (`onto`). */
  venv: Exclude<InstallOver, 'debian'>;
}

export interface RequirementsOutcome {
  shortfalls: Shortfall[];
  /** What the venv and Debian's directories hold now: normalized name → version. */
  versions: Map<string, string>;
}

/** What the networked box found: pip's downloads and Debian's packages for the rest. */
export interface Fetched {
  pip: PipOutcome;
  debianSaid: Map<string, string>;
  /** Direct-URL requirements pip was not given, and why (a trusted one that is not a wheel). */
  notTried: Map<string, string>;
  /** Untrusted direct references, asked for by their name instead (direct-references.ts). */
  byName: Set<string>;
}

// pip would build a source archive's or a VCS checkout's metadata where the network is.
const NOT_A_WHEEL =
  'not tried: a direct URL to a source archive or VCS is never built where there is a network';

/** The direct-URL requirements (trusted ones: untrusted ones are asked by name) pip is not given: any that is not a wheel. */
function urlsNotTried(wanted: PlannedRequirement[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const q of wanted)
    if (q.url !== undefined && !/\.whl(?:#.*)?$/.test(q.url)) out.set(q.normalized, NOT_A_WHEEL);
  return out;
}

/**
 * The networked half, in a box where nothing downloaded is installed: pip downloads (best effort)
 * every requirement with sources = index (a Debian package the image holds never stands in for one
 * the project declares); with sources = debian, what the image does not already meet — as `pip
 * install` would have left a met requirement alone (one with extras still goes to pip). Then Debian
 * installs a package for each requirement pip could not download and the image lacks.
 */
export async function fetchRequirements(net: BuildBox, ctx: RequirementsContext): Promise<Fetched> {
  const { sources } = ctx;
  // An untrusted direct reference is asked for by its name; a trusted one only when it is a wheel.
  const direct = pipRequirements(ctx.wanted, ctx.trustUrls);
  if (direct.said) sources.push(direct.said);
  const wanted = direct.requirements;
  const byName = direct.byName;
  const notTried = urlsNotTried(wanted);
  if (!wanted.length) return { pip: downloadNothing(), debianSaid: new Map(), notTried, byName };
  const system = Object.fromEntries(await scanVersions(net, ctx.plan.python));
  const unmetBySystem = new Set(unsatisfied(wanted, system).map((q) => q.normalized));
  const toPip = wanted.filter(
    (q) =>
      !notTried.has(q.normalized) &&
      (ctx.use === 'index' || unmetBySystem.has(q.normalized) || q.extras.length > 0),
  );
  const pip = toPip.length ? await downloadBestEffort(net, ctx, toPip) : downloadNothing();
  sources.push(`pip: ${toPip.length ? pip.said : 'nothing the image lacks'}`);
  const relaxedByPip = new Set(pip.relaxed.map((q) => q.normalized));
  const unmet = unsatisfied(wanted, system).filter(
    (q) => !pip.lines.has(q.normalized) && !relaxedByPip.has(q.normalized),
  );
  const debianSaid = await debianForUnmet(ctx, unmet);
  return { pip, debianSaid, notTried, byName };
}

/**
 * The offline half, in a box with no network and no secret: pip installs from the downloaded and
 * built files only; then what the venv and Debian's directories hold is read from metadata files
 * and every requirement still unmet becomes a shortfall (or, strict, the build's failure).
 */
export async function installRequirements(
  box: BuildBox,
  ctx: RequirementsContext,
  fetched: Fetched,
): Promise<RequirementsOutcome> {
  const { wanted, resolved } = ctx;
  const { pip, debianSaid, notTried } = fetched;
  const installed = await installDownloaded(box, ctx, pip);
  const versions = await scanVersions(box, ctx.plan.python);
  if (!wanted.length) return { shortfalls: [], versions };
  const relaxedByPip = new Set(pip.relaxed.map((q) => q.normalized));
  const unmet = unsatisfied(wanted, Object.fromEntries(versions)).filter(
    (q) => !relaxedByPip.has(q.normalized),
  );
  const said = (q: PlannedRequirement) => {
    const have = versions.get(q.normalized);
    const deb = debianSaid.get(q.normalized) ?? 'not tried';
    const debText =
      have && q.debian && deb === q.debian ? `${q.debian} gives ${have}, which does not satisfy it` : deb;
    const byName = fetched.byName.has(q.normalized)
      ? 'by its name (its URL not fetched: a repository you have not trusted): '
      : '';
    const pipText = `${byName}${notTried.get(q.normalized) ?? pip.saidOf.get(q.normalized) ?? pip.said}`;
    return `pip: ${pipText}; debian: ${debText}`;
  };
  if (ctx.strict && (unmet.length || pip.relaxed.length))
    strictFailure(ctx, [...pip.relaxed, ...unmet], said);
  recordResolved(wanted, versions, installed, resolved);
  const broken = await checkImports(box, ctx, versions, (q) => sourceOf(q, installed, resolved));
  const shortfalls: Shortfall[] = [
    ...pip.relaxed.map((q) => shortfallOf(q, 'relaxed', versions.get(q.normalized) ?? null, 'pip', said(q))),
    ...unmet.map((q) => {
      const got = versions.get(q.normalized) ?? null;
      return shortfallOf(
        q,
        got ? 'relaxed' : 'missing',
        got,
        got ? sourceOf(q, installed, resolved) : null,
        said(q),
      );
    }),
    ...broken,
  ];
  return { shortfalls, versions };
}

/** The installed requirements imported one by one (import-check.ts): a `broken` shortfall for each that fails. */
async function checkImports(
  box: BuildBox,
  ctx: RequirementsContext,
  versions: Map<string, string>,
  source: (q: PlannedRequirement) => string,
): Promise<Shortfall[]> {
  const installed = ctx.wanted.filter((q) => versions.has(q.normalized));
  if (!installed.length) return [];
  const r = await box.run(
    importCheckStep(
      ctx.plan.python,
      installed.map((q) => q.name),
    ),
  );
  if (r.exit_code !== 0)
    ctx.sources.push(`import check: ended early (exit ${r.exit_code}): ${lastLines(r.output_tail, 1)}`);
  const slow = parseSlowImports(r.stdout);
  if (slow.length)
    ctx.sources.push(`import check: not finished within its budget, left as installed: ${slow.join(', ')}`);
  return brokenShortfalls(installed, parseImportCheck(r.stdout), versions, source);
}

/** pip install from the downloads alone; what it installed (normalized names), recorded. */
async function installDownloaded(
  box: BuildBox,
  ctx: RequirementsContext,
  pip: PipOutcome,
): Promise<Set<string>> {
  const installed = new Set<string>();
  if (!pip.lines.size) return installed;
  const over = ctx.use === 'index' ? ctx.venv : 'debian';
  const { project } = ctx.plan;
  const own = project.installable && project.name ? normalize(project.name) : null;
  const r = await box.run(offlineInstallStep([...pip.lines.values()], [DOWNLOADS, BUILT], over, own));
  if (r.exit_code !== 0) {
    ctx.sources.push(`install (offline): failed (${lastLines(r.output_tail, 1).replace(/^ERROR: /, '')})`);
    return installed;
  }
  for (const p of pipReport(r.stdout)) {
    // The project's own copy was uninstalled after the install (offlineInstallStep): not installed.
    if (over !== 'debian' && normalize(p.name) === own) continue;
    installed.add(normalize(p.name));
    ctx.resolved.set(normalize(p.name), { name: p.name, version: p.version, source: 'pip' });
  }
  ctx.sources.push(`install (offline): ${installed.size} distribution(s) from the downloaded files`);
  return installed;
}

function downloadNothing(): PipOutcome {
  return { said: 'nothing to download', saidOf: new Map(), lines: new Map(), relaxed: [] };
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

async function scanVersions(box: BuildBox, python: string): Promise<Map<string, string>> {
  const r = await box.run(versionsScanStep('versions', python));
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
