// `env plan` of a JavaScript/TypeScript repository: the plan its environment is built from, in words
// (Node's major, the package manager, the lockfile, the workspaces, the test command, each with
// where it was read) or as its JSON form. Repository text is made inert by the caller.
import { planJsEnvironment } from '../../runtime/env/js/plan/plan-js.js';
import type { JsPlan } from '../../runtime/env/js/plan/js-plan.js';

function renderJsPlanText(plan: JsPlan): string {
  const lines = [
    `Environment plan (JavaScript/TypeScript): Node ${plan.node.major}, ${plan.manager.name} ${plan.manager.version}`,
    `  Node from ${plan.node.from}; the package manager from ${plan.manager.from}`,
    plan.lockfile ? `Lockfile: ${plan.lockfile.path}` : 'Lockfile: none (an unlocked install)',
    `Manifests: ${plan.manifests.map((m) => m.path).join(', ')}`,
  ];
  if (plan.workspaces.length) lines.push(`Workspaces: ${plan.workspaces.join(', ')}`);
  if (plan.configFiles.length)
    lines.push(`Settings copied: ${plan.configFiles.map((f) => f.path).join(', ')}`);
  lines.push(`TypeScript: ${plan.typescript ? 'yes (the tsc gate applies)' : 'no'}`, '');
  const runner = plan.testRunner && plan.testRunner !== 'unknown' ? ` (${plan.testRunner})` : '';
  lines.push(`test command: ${plan.testCommand ?? 'npm test'}${runner}`, `  from ${plan.testCommandFrom}`);
  lines.push('', 'Decisions:', ...plan.decisions.map((d) => `  - ${d}`));
  return lines.join('\n');
}

/** The plan as text, or its JSON form (the same object the build hashes into its key). */
export function jsPlanOutput(repo: string, json: boolean): string {
  const plan = planJsEnvironment(repo);
  return json ? JSON.stringify(plan, null, 2) : renderJsPlanText(plan);
}
