// A harness spec (harness-spec.ts) as an untrusted recipe (.piper/sandbox.toml's keys): its pins
// and package lists become requirements, `pip install -e .[x]` the extras, `apt-get install` lines
// Debian package names, and a `sed` that writes a requirement into a declaration file that
// requirement. Nothing of it is run: every other step (an edit of the repository's files, a build
// command, a test-command tweak) is dropped with its reason, and the repository's own declarations
// are still read (detection stays on), as the harness installs the project after its pins.
import { parseRequirement } from '../../runtime/env/plan/read/pep508.js';
import { validateRecipe, type Recipe } from '../../runtime/env/plan/recipe.js';
import type { HarnessSpec } from './harness-spec.js';
import { aptPackages, sedRequirements } from './spec-steps.js';

export interface SpecRecipe {
  recipe: Recipe;
  /** Each part of the spec and what became of it, one line each (the validation record keeps them). */
  applied: string[];
  dropped: string[];
}

/** A requirements file the harness names as its package list: the repository's, which detection reads anyway. */
const DECLARATION_FILES = /^requirements[\w./-]*\.txt$/;

function isRequirement(text: string): boolean {
  try {
    parseRequirement(text);
    return true;
  } catch {
    return false;
  }
}

function packagesOf(spec: HarnessSpec, out: SpecRecipe, requirements: string[]): void {
  const text = spec.packages?.trim();
  if (!text) return;
  if (text === 'environment.yml') {
    // conda's file: the plan does not read it, so what only it names (xarray's numbagg) is not installed.
    out.dropped.push(`packages "${text}": a conda environment file, which the plan does not read`);
    return;
  }
  if (DECLARATION_FILES.test(text)) {
    out.applied.push(`packages "${text}": the repository's own file, read as its declarations`);
    return;
  }
  for (const word of text.split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ''))) {
    if (isRequirement(word)) requirements.push(word);
    else out.dropped.push(`packages "${word}": not a requirement`);
  }
}

/** `pip install -e .[test]` / `'.[dev]'`: the extras; any other install is the project's own, as detection installs it. */
function installOf(spec: HarnessSpec, out: SpecRecipe): string[] | undefined {
  const text = spec.install?.trim();
  if (!text) return undefined;
  const extras = /(?:^|\s)['"]?\.\[([\w,-]+)\]['"]?(?:\s|$)/.exec(text);
  if (extras) {
    out.applied.push(`install "${text}": extras ${extras[1]}`);
    return extras[1]!.split(',');
  }
  out.dropped.push(`install "${text}": the project is installed from its declarations`);
  return undefined;
}

function preInstallOf(spec: HarnessSpec, out: SpecRecipe, requirements: string[], apt: string[]): void {
  for (const line of spec.pre_install ?? []) {
    const names = aptPackages(line);
    if (names) {
      apt.push(...names);
      out.applied.push(`pre_install "${line}": Debian packages ${names.join(' ')}`);
      continue;
    }
    const pins = sedRequirements(line)?.filter(isRequirement);
    if (pins?.length) {
      // The harness installs pip_packages first and the edited declarations after: for a package
      // both name (Jinja2==3.0.3, then the sed's Jinja2<3.0), the declaration's is what it ends with.
      const later = new Set(pins.map(nameOf));
      requirements.splice(0, requirements.length, ...requirements.filter((r) => !later.has(nameOf(r))));
      requirements.push(...pins);
      out.applied.push(`pre_install "${line}": requirements ${pins.join(', ')}`);
      continue;
    }
    out.dropped.push(`pre_install "${line}": edits the repository's files or runs a command; not run`);
  }
}

/** A requirement's project name, normalized as pip compares names. */
function nameOf(requirement: string): string {
  const name = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(requirement)?.[1] ?? requirement;
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

const EXACT_PIN = /^([A-Za-z0-9][\w.-]*(?:\[[\w,.-]*\])?)\s*==\s*(\d+)\.(\d+)(?:\.[\w.]+)?$/;

/**
 * An exact pin made for another Python, as its release series (`numpy==1.23.0` → `numpy==1.23.*`):
 * a patch release of the series often is the first with wheels for the newer Python, where the pinned
 * one would have to be built from its sdist (or not at all).
 */
export function seriesPin(text: string): string {
  const m = EXACT_PIN.exec(text.trim());
  return m ? `${m[1]}==${m[2]}.${m[3]}.*` : text;
}

function pinsOf(
  spec: HarnessSpec,
  out: SpecRecipe,
  requirements: string[],
  python: string | undefined,
): void {
  const series = spec.python !== undefined && python !== undefined && python !== spec.python;
  const relaxed: string[] = [];
  for (const pin of spec.pip_packages ?? []) {
    if (!isRequirement(pin)) {
      out.dropped.push(`pip_packages "${pin}": not a requirement`);
      continue;
    }
    const used = series ? seriesPin(pin) : pin;
    if (used !== pin) relaxed.push(used);
    requirements.push(used);
  }
  if (spec.pip_packages?.length) out.applied.push(`pip_packages: ${spec.pip_packages.length} requirements`);
  if (relaxed.length)
    out.applied.push(
      `exact pins as their release series on Python ${python}, not ${spec.python}: ${relaxed.join(', ')}`,
    );
}

/** The spec as a recipe for a sandbox whose Python is `python` (undefined: not known, the spec's own). */
export function specRecipe(spec: HarnessSpec, python?: string): SpecRecipe {
  const out: SpecRecipe = { recipe: {}, applied: [], dropped: [] };
  const requirements: string[] = [];
  const apt: string[] = [];
  packagesOf(spec, out, requirements);
  pinsOf(spec, out, requirements, python);
  const extras = installOf(spec, out);
  preInstallOf(spec, out, requirements, apt);
  for (const key of Object.keys(spec).filter((k) => !KNOWN.has(k)))
    out.dropped.push(`${key}: not an install step`);
  if (spec.test_cmd)
    out.dropped.push('test_cmd: the instance is graded by its own test command (test-command.ts)');
  out.recipe = validateRecipe({
    ...(requirements.length ? { requirements: [...new Set(requirements)] } : {}),
    ...(apt.length ? { apt: [...new Set(apt)] } : {}),
    ...(extras ? { extras } : {}),
  });
  return out;
}

const KNOWN = new Set(['python', 'packages', 'pip_packages', 'pre_install', 'install', 'test_cmd']);
