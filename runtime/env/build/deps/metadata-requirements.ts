// Requires-Dist lines read as data: PEP 508, markers evaluated for the sandbox's Python (with each
// extra asked for), and each requirement checked as the planner checks a repository's: a direct
// URL or VCS reference is refused (a server of the build code's choosing), a line that does not
// parse is refused with the parser's words. The METADATA is build code's output, never trusted more.
import { debianPackageFor } from '../../plan/debian-names.js';
import { isEnvPlanError } from '../../plan/errors.js';
import { markerEnvironment, type SandboxPython } from '../../plan/read/marker-env.js';
import { evaluateMarker } from '../../plan/read/marker.js';
import { normalizeName } from '../../plan/read/normalize.js';
import { parseRequirement, renderRequirement, renderSpecifiers } from '../../plan/read/pep508.js';
import type { PlannedRequirement } from '../../plan/types.js';

export interface MetadataRequirements {
  requirements: PlannedRequirement[];
  /** Each refused line and why (inert text is the caller's job). */
  refused: string[];
}

export function metadataRequirements(
  lines: string[],
  opts: { python: SandboxPython; extras: string[]; from: string },
): MetadataRequirements {
  const out: MetadataRequirements = { requirements: [], refused: [] };
  const seen = new Set<string>();
  for (const line of lines) {
    let parsed;
    try {
      parsed = parseRequirement(line);
    } catch (error) {
      if (!isEnvPlanError(error)) throw error;
      out.refused.push(`${line.slice(0, 120)}: ${error.message}`);
      continue;
    }
    const marker = parsed.marker;
    const applies =
      !marker ||
      ['', ...opts.extras].some((extra) => evaluateMarker(marker, markerEnvironment(opts.python, extra)));
    if (!applies) continue;
    if (parsed.url !== undefined) {
      out.refused.push(`${parsed.name}: a direct URL or VCS reference is not followed`);
      continue;
    }
    const normalized = normalizeName(parsed.name);
    if (seen.has(normalized)) continue;
    seen.add(normalized);
    out.requirements.push({
      name: parsed.name,
      normalized,
      line: renderRequirement({ ...parsed, marker: undefined }),
      specifier: renderSpecifiers(parsed.specifiers),
      extras: [...parsed.extras].sort(),
      from: opts.from,
      reason: 'runtime',
      optional: false,
      debian: debianPackageFor(parsed.name),
    });
  }
  return out;
}
