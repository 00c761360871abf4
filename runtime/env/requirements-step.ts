// Phase 1's core: every requirement met, from pip (the user's index or wheel directories) and then,
// for whatever is still unmet, from Debian's packages by their PyPI → Debian name, each version
// checked against the requirement's specifier. A requirement no source meets fails the build with
// what each source said about it.
import type { ResolvedPackage } from '../ledger/environments.js';
import { EnvBuildError } from './build-error.js';
import type { BuildBox, StepResult } from './build-box.js';
import type { PipSettings } from './pip-settings.js';
import { pipRequirementLine } from './plan/pip-line.js';
import type { EnvPlan, PlannedRequirement } from './plan/types.js';
import { aptStep, pipStep, versionsStep, type PipSource } from './steps.js';
import { dpkgLines, lastLines, missingLines, normalize, pipReport, unsatisfied } from './step-output.js';

export interface RequirementsContext {
  plan: EnvPlan;
  pip: PipSettings;
  /** The wheel directories as the build container sees them. */
  wheelDirs: string[];
  /** Whether the repository's direct-URL requirements may go to pip (see BuildInput.trustUrls). */
  trustUrls: boolean;
  /** What was installed, by normalized name (or `deb:PACKAGE`); filled in here. */
  resolved: Map<string, ResolvedPackage>;
  /** What each source gave, in order; filled in here. */
  sources: string[];
  fail: (message: string, fix: string) => never;
  check: (step: StepResult, what: string) => Promise<void>;
}

export async function satisfyRequirements(box1: BuildBox, ctx: RequirementsContext): Promise<void> {
  const { plan, resolved, sources, fail, check } = ctx;
  const wanted = plan.requirements;
  if (!wanted.length) return;
  const pipSource = pipSourceFor(ctx.pip, ctx.wheelDirs);
  const untrustedUrls = ctx.trustUrls ? [] : wanted.filter((q) => q.url);
  const toPip = wanted.filter((q) => !untrustedUrls.includes(q));
  const fromPip = new Set<string>();
  let pipSaid = 'no index or wheelhouse configured (PIP_INDEX_URL, PIP_FIND_LINKS or the recipe)';
  if (pipSource && toPip.length) {
    // The raw line for pip (URL credentials kept, marker already evaluated), never the shown one.
    const r = await box1.run(pipStep(toPip.map(pipRequirementLine), pipSource));
    if (r.exit_code === 0) {
      for (const p of pipReport(r.stdout)) {
        fromPip.add(normalize(p.name));
        resolved.set(normalize(p.name), { name: p.name, version: p.version, source: 'pip' });
      }
      pipSaid = `installed ${fromPip.size} distribution(s)`;
    } else {
      pipSaid = `failed (${lastLines(r.output_tail, 1).replace(/^ERROR: /, '')})`;
    }
  }
  const pipSaidOf = (q: PlannedRequirement) =>
    untrustedUrls.includes(q)
      ? 'not tried: a direct URL from a repository you have not trusted (--trust-repo-config)'
      : pipSaid;
  sources.push(`pip: ${pipSaid}`);

  let versions = await installedVersions(box1, 'check', wanted);
  let unmet = unsatisfied(wanted, versions);
  const debianSaid = new Map<string, string>();
  if (unmet.length) {
    const mapped = unmet.filter((q) => q.debian);
    for (const q of unmet)
      if (!q.debian) debianSaid.set(q.normalized, `no Debian package is known for ${q.name}`);
    if (mapped.length) {
      const pkgs = [...new Set(mapped.map((q) => q.debian!))];
      const r = await box1.run(aptStep('debian', pkgs, false));
      await check(r, 'debian');
      const missing = new Set(missingLines(r.stdout));
      const installed = dpkgLines(r.stdout);
      for (const [pkg, version] of installed)
        resolved.set(`deb:${pkg}`, { name: pkg, version, source: 'debian' });
      for (const q of mapped)
        debianSaid.set(
          q.normalized,
          missing.has(q.debian!) ? `${q.debian} is not in Debian ${plan.debian}` : `${q.debian}`,
        );
      sources.push(`debian: ${installed.map(([p, v]) => `${p} ${v}`).join(', ') || 'nothing installable'}`);
      versions = await installedVersions(box1, 'check again', wanted);
      unmet = unsatisfied(wanted, versions);
    }
  }
  if (unmet.length) {
    const lines = unmet.map((q) => {
      const have = versions[q.normalized];
      const deb = debianSaid.get(q.normalized) ?? 'not tried';
      const debText =
        have && q.debian && deb === q.debian ? `${q.debian} gives ${have}, which does not satisfy it` : deb;
      return `  ${q.name}${q.specifier ? ` ${q.specifier}` : ''} (from ${q.from}): pip: ${pipSaidOf(q)}; debian: ${debText}`;
    });
    fail(
      `cannot satisfy ${unmet.length} requirement(s) in any source:\n${lines.join('\n')}`,
      'serve the packages from an index (PIP_INDEX_URL, or index_url in .piper/sandbox.toml), a wheelhouse (PIP_FIND_LINKS, or find_links), or relax the specifier',
    );
  }
  for (const q of wanted) {
    if (!resolved.has(q.normalized) && versions[q.normalized]) {
      const source = fromPip.has(q.normalized)
        ? 'pip'
        : q.debian && resolved.has(`deb:${q.debian}`)
          ? 'debian'
          : 'system';
      resolved.set(q.normalized, { name: q.name, version: versions[q.normalized]!, source });
    }
  }
}

function pipSourceFor(pip: PipSettings, wheelDirs: string[]): PipSource | null {
  const hasIndex = pip.indexUrl !== null || pip.extraIndexUrls.length > 0;
  if (!hasIndex && !wheelDirs.length && !pip.findLinkUrls.length) return null;
  const env: string[] = [];
  const display: string[] = [];
  if (pip.indexUrl) {
    env.push(`PIP_INDEX_URL=${pip.indexUrl}`);
    display.push(`PIP_INDEX_URL=${pip.redact(pip.indexUrl)}`);
  }
  if (pip.extraIndexUrls.length) {
    env.push(`PIP_EXTRA_INDEX_URL=${pip.extraIndexUrls.join(' ')}`);
    display.push(`PIP_EXTRA_INDEX_URL=${pip.extraIndexUrls.map(pip.redact).join(' ')}`);
  }
  return { env, display, findLinks: [...wheelDirs, ...pip.findLinkUrls], noIndex: !hasIndex };
}

async function installedVersions(
  box: BuildBox,
  name: string,
  wanted: PlannedRequirement[],
): Promise<Record<string, string | null>> {
  const byName = await installedVersionsByName(
    box,
    name,
    wanted.map((q) => q.name),
  );
  return Object.fromEntries(wanted.map((q) => [q.normalized, byName[q.name] ?? null]));
}

export async function installedVersionsByName(
  box: BuildBox,
  name: string,
  names: string[],
): Promise<Record<string, string | null>> {
  const r = await box.run(versionsStep(name, names));
  const line = r.stdout.split('\n').find((l) => l.startsWith('piper-versions '));
  if (r.exit_code !== 0 || !line)
    throw new EnvBuildError(
      `could not read the installed versions: ${lastLines(r.output_tail)}`,
      'rebuild the sandbox image: `piper-agent image build --force`',
      box.steps,
      [],
    );
  return JSON.parse(line.slice('piper-versions '.length)) as Record<string, string | null>;
}
