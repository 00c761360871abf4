// The key of a JavaScript environment: what the image is made of — the plan as its schema reads it
// (manifests' and lockfile's hashes, the sanitized configuration, the manager and Node), the
// toolchain's key (the exact versions and its box's scripts) and every script of the build. What
// only the runs use (the test command and its variables, the plan's sentences) is left out: a new
// CI step builds nothing again.
import { createHash } from 'node:crypto';
import { JsPlanSchema, type JsPlan } from '../js/plan/js-plan.js';
import {
  downloadCommand,
  downloadEnv,
  IMAGE_ENV,
  rebuildCommand,
  rebuildEnv,
} from '../js/build/install-commands.js';
import { workspaceLinksStep } from '../js/build/workspace-links.js';
import { binShadowsStep } from '../js/build/bin-shadows.js';

export function jsEnvironmentKey(plan: JsPlan, toolchainKey: string): string {
  const {
    testCommand: _c,
    testCommandFrom: _f,
    testEnv: _e,
    decisions: _d,
    ...built
  } = JsPlanSchema.parse(plan);
  const m = plan.manager.name;
  const scripts = [
    downloadCommand(m, true),
    downloadCommand(m, false),
    downloadEnv(m).join(' '),
    rebuildCommand(m),
    rebuildEnv(m).join(' '),
    workspaceLinksStep(plan.workspaces).script,
    binShadowsStep().script,
    IMAGE_ENV,
  ];
  return createHash('sha256').update(JSON.stringify({ built, toolchainKey, scripts })).digest('hex');
}
