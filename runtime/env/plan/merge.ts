// Turning the requirements found in every source into the plan's list: each marker evaluated for
// the sandbox's Python (false → skipped, with the marker and the Python), then one entry per
// distribution (PEP 503 name), its specifiers and extras merged and every place it came from kept.
// The first source to name a distribution gives its reason (sources are added runtime → test →
// build → recipe → inferred). Every source's kind is kept too, so tooling can be told apart from
// what a project or a test needs (tooling.ts). Constraints and lockfile pins only narrow
// distributions that are already required. A distribution named many times keeps each distinct
// specifier clause once, at most as many as one specifier may have (version-bounds.ts): the rest
// are not applied, said once.
import { debianPackageFor } from './debian-names.js';
import { evaluateMarker, renderMarker } from './read/marker.js';
import { markerEnvironment, type SandboxPython } from './read/marker-env.js';
import { normalizeName } from './read/normalize.js';
import {
  renderRequirement,
  renderSpecifiers,
  type Requirement,
  type VersionSpecifier,
} from './read/pep508.js';
import { redactUrl } from './read/redact.js';
import { MAX_SPECIFIER_CLAUSES } from './read/version-bounds.js';
import type { PlannedRequirement, SkippedRequirement } from './types.js';

export type Reason = PlannedRequirement['reason'];

interface Entry {
  requirement: Requirement;
  from: string[];
  /** `from`'s members, the extras and the specifier clauses (`op version`): lookups in constant time. */
  fromSet: Set<string>;
  extras: Set<string>;
  clauses: Set<string>;
  /** Whether clauses over the bound were left out (said once). */
  capped: boolean;
  reason: Reason;
  /** Every kind of source that named it. */
  kinds: Set<Reason>;
  /** Whether every source that named it was optional (an import under try/except ImportError). */
  optional: boolean;
}

/** What the plan knows of one required distribution while it is being made. */
export interface EntryView {
  name: string;
  normalized: string;
  kinds: ReadonlySet<Reason>;
  from: readonly string[];
}

/** The one line a direct reference gets: what happens to it with and without trust. */
function directReference(name: string, url: string, from: string): string {
  return `${name}: \`${redactUrl(url)}\` (${from}) is a direct reference: fetched only when you trust the repository's configuration (--trust-repo-config); otherwise never fetched, and ${name} is resolved by its name from your pip sources, then Debian`;
}

const REASON_ORDER: Reason[] = ['runtime', 'test', 'inferred', 'test-command', 'build', 'recipe'];

function addFrom(entry: Entry, from: string): void {
  if (entry.fromSet.has(from)) return;
  entry.fromSet.add(from);
  entry.from.push(from);
}

export class RequirementSet {
  private readonly entries = new Map<string, Entry>();
  readonly skipped: SkippedRequirement[] = [];
  readonly decisions: string[] = [];

  constructor(private readonly python: SandboxPython) {}

  /** Whether the marker holds for the sandbox's Python (and `extra`); a false one is recorded as skipped. */
  applies(requirement: Requirement, from: string, extra = ''): boolean {
    if (!requirement.marker) return true;
    if (evaluateMarker(requirement.marker, markerEnvironment(this.python, extra))) return true;
    const marker = renderMarker(requirement.marker);
    const forExtra = extra ? ` (installing extra "${extra}")` : '';
    this.skipped.push({
      line: redactUrl(renderRequirement(requirement)),
      from,
      reason: `marker \`${marker}\` is false for Python ${this.python} on linux x86_64${forExtra}`,
    });
    return false;
  }

  /** Add a requirement whose marker already holds. */
  add(requirement: Requirement, from: string, reason: Reason, optional = false): void {
    const key = normalizeName(requirement.name);
    const entry = this.entries.get(key);
    if (!entry) {
      if (requirement.url) this.decisions.push(directReference(requirement.name, requirement.url, from));
      const made: Entry = {
        requirement: { ...requirement, extras: [...new Set(requirement.extras)], specifiers: [] },
        from: [from],
        fromSet: new Set([from]),
        extras: new Set(requirement.extras),
        clauses: new Set(),
        capped: false,
        reason,
        kinds: new Set([reason]),
        optional,
      };
      this.addClauses(made, requirement.specifiers, from);
      this.entries.set(key, made);
      return;
    }
    entry.kinds.add(reason);
    entry.optional &&= optional;
    const merged = entry.requirement;
    for (const extra of requirement.extras) {
      if (entry.extras.has(extra)) continue;
      entry.extras.add(extra);
      merged.extras.push(extra);
    }
    this.addClauses(entry, requirement.specifiers, from);
    if (requirement.url && merged.url && requirement.url !== merged.url) {
      this.decisions.push(
        `${requirement.name}: ${from} names another URL (${redactUrl(requirement.url)}); the first, ${redactUrl(merged.url)}, is kept`,
      );
    }
    merged.url ??= requirement.url;
    // A marker shown for a merged entry must be every source's marker; otherwise show none.
    const same =
      merged.marker && requirement.marker && renderMarker(merged.marker) === renderMarker(requirement.marker);
    if (!same) merged.marker = undefined;
    addFrom(entry, from);
  }

  /** Each clause not already there, up to the bound; the first clause left out is said. */
  private addClauses(entry: Entry, specifiers: readonly VersionSpecifier[], from: string): void {
    for (const spec of specifiers) {
      const clause = `${spec.op} ${spec.version}`;
      if (entry.clauses.has(clause)) continue;
      if (entry.clauses.size >= MAX_SPECIFIER_CLAUSES) {
        if (!entry.capped)
          this.decisions.push(
            `${entry.requirement.name}: its sources name more than ${MAX_SPECIFIER_CLAUSES} distinct version clauses, the most a specifier may have; ${spec.op}${spec.version} (${from}) and any later ones are not applied`,
          );
        entry.capped = true;
        continue;
      }
      entry.clauses.add(clause);
      entry.requirement.specifiers.push(spec);
    }
  }

  /** A constraint narrows an already required distribution; it never adds one. */
  constrain(requirement: Requirement, from: string): boolean {
    const entry = this.entries.get(normalizeName(requirement.name));
    if (!entry) return false;
    this.addClauses(entry, requirement.specifiers, from);
    entry.requirement.url ??= requirement.url;
    addFrom(entry, `${from} (constraint)`);
    return true;
  }

  /** A lockfile's version for a required distribution: `==version`, tagged `(locked)`. */
  pin(name: string, version: string, from: string): void {
    const entry = this.entries.get(normalizeName(name));
    if (!entry) return;
    this.addClauses(entry, [{ op: '==', version }], from);
    addFrom(entry, `${from} (locked)`);
  }

  /** Another place that needs an already required distribution (e.g. a test that imports it). */
  note(name: string, from: string): void {
    const entry = this.entries.get(normalizeName(name));
    if (entry) addFrom(entry, from);
  }

  /** Count `kind` among the sources of an already required distribution (the recipe chose its list). */
  mark(name: string, kind: Reason): void {
    this.entries.get(normalizeName(name))?.kinds.add(kind);
  }

  /** Take a distribution out of the requirements (the caller records why in `skipped`). */
  remove(name: string): { line: string; from: string } | null {
    const key = normalizeName(name);
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    const line = redactUrl(renderRequirement({ ...entry.requirement, marker: undefined }));
    return { line, from: entry.from.join('; ') };
  }

  has(name: string): boolean {
    return this.entries.has(normalizeName(name));
  }

  /** The specifiers a distribution is required with so far, '' when none or unknown. */
  specifierOf(name: string): string {
    const entry = this.entries.get(normalizeName(name));
    return entry && !entry.requirement.url ? renderSpecifiers(entry.requirement.specifiers) : '';
  }

  /** Every required distribution so far, in the order first named. */
  views(): EntryView[] {
    return [...this.entries.entries()].map(([normalized, entry]) => ({
      name: entry.requirement.name,
      normalized,
      kinds: entry.kinds,
      from: entry.from,
    }));
  }

  /** The plan's requirements: by reason, then name. `line` leaves the (already true) marker out. */
  planned(): PlannedRequirement[] {
    return [...this.entries.entries()]
      .sort(
        ([a, x], [b, y]) =>
          REASON_ORDER.indexOf(x.reason) - REASON_ORDER.indexOf(y.reason) || (a < b ? -1 : 1),
      )
      .map(([normalized, entry]) => {
        const { requirement } = entry;
        const planned: PlannedRequirement = {
          name: requirement.name,
          normalized,
          line: redactUrl(renderRequirement({ ...requirement, marker: undefined })),
          specifier: requirement.url ? '' : renderSpecifiers(requirement.specifiers),
          extras: [...requirement.extras].sort(),
          from: entry.from.join('; '),
          reason: entry.reason,
          optional: entry.optional,
          debian: debianPackageFor(requirement.name),
        };
        if (requirement.marker) planned.marker = renderMarker(requirement.marker);
        if (requirement.url) planned.url = requirement.url;
        return planned;
      });
  }
}
