// Turning the requirements found in every source into the plan's list: each marker evaluated for
// the sandbox's Python (false → skipped, with the marker and the Python), then one entry per
// distribution (PEP 503 name), its specifiers and extras merged and every place it came from kept.
// The first source to name a distribution gives its reason (sources are added runtime → test →
// build → recipe). Constraints only narrow distributions that are already required.
import { debianPackageFor } from './debian-names.js';
import { evaluateMarker, renderMarker } from './marker.js';
import { markerEnvironment, type SandboxPython } from './marker-env.js';
import { normalizeName } from './normalize.js';
import { renderRequirement, renderSpecifiers, type Requirement } from './pep508.js';
import { redactUrl } from './redact.js';
import type { PlannedRequirement, SkippedRequirement } from './types.js';

export type Reason = PlannedRequirement['reason'];

interface Entry {
  requirement: Requirement;
  from: string[];
  reason: Reason;
}

const REASON_ORDER: Reason[] = ['runtime', 'test', 'build', 'recipe'];

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
  add(requirement: Requirement, from: string, reason: Reason): void {
    const key = normalizeName(requirement.name);
    const entry = this.entries.get(key);
    if (!entry) {
      this.entries.set(key, {
        requirement: { ...requirement, extras: [...requirement.extras] },
        from: [from],
        reason,
      });
      return;
    }
    const merged = entry.requirement;
    merged.extras = [...new Set([...merged.extras, ...requirement.extras])];
    merged.specifiers = [...merged.specifiers, ...requirement.specifiers];
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
    if (!entry.from.includes(from)) entry.from.push(from);
  }

  /** A constraint narrows an already required distribution; it never adds one. */
  constrain(requirement: Requirement, from: string): boolean {
    const entry = this.entries.get(normalizeName(requirement.name));
    if (!entry) return false;
    entry.requirement.specifiers = [...entry.requirement.specifiers, ...requirement.specifiers];
    entry.requirement.url ??= requirement.url;
    const tagged = `${from} (constraint)`;
    if (!entry.from.includes(tagged)) entry.from.push(tagged);
    return true;
  }

  has(name: string): boolean {
    return this.entries.has(normalizeName(name));
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
          debian: debianPackageFor(requirement.name),
        };
        if (requirement.marker) planned.marker = renderMarker(requirement.marker);
        if (requirement.url) planned.url = requirement.url;
        return planned;
      });
  }
}
