// edit_entity's policy: the evidence gate (an earlier read or search of this run returned the
// selector; the ablation rule can switch it off), and the trust gate's checks of a committed edit:
// its diff shows the replacement once, and it carries the harness's clean lint verdict. The tool
// itself: primitives/tools/edit-entity.ts.
import type { editEntityTool } from '../../primitives/tools/edit-entity.js';
import { editRoundTrip } from './edit-round-trip.js';
import { ask, type ToolPolicy } from './tool-policy.js';

export const editEntityPolicy: ToolPolicy<typeof editEntityTool.name> = {
  precondition: (args, checks, gates) =>
    !gates.evidenceGate || ask(() => checks.hasEvidence(args.selector))
      ? null
      : `no evidence for selector ${args.selector}`,
  trustChecks: (args, result) => {
    if (!result.ok || !result.data || !result.data.committed) return [];
    const failures: string[] = [];
    const roundTrip = editRoundTrip(args.search, args.replace, result.data.diff);
    if (roundTrip) failures.push(`round-trip: ${roundTrip}`);
    if (!result.data.lint_clean)
      failures.push('lint: committed edit carries lint_clean false from the harness lint');
    return failures;
  },
  presentedByDefault: false,
};
