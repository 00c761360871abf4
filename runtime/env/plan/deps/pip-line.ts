// The text the builder hands pip for one planned requirement. `line` is for people and records
// (a URL's credentials redacted), so a URL requirement is rebuilt from its raw `url`; the marker
// is left out in both, since it was already evaluated for the sandbox's Python.
import type { PlannedRequirement } from '../types.js';

export function pipRequirementLine(requirement: PlannedRequirement): string {
  if (requirement.url === undefined) return requirement.line;
  const extras = requirement.extras.length ? `[${requirement.extras.join(',')}]` : '';
  return `${requirement.name}${extras} @ ${requirement.url}`;
}
