// What the project's test command needs besides what its files declare: the programs it names
// (`coverage run -m pytest`, `nose2`, `python -m twisted.trial`) and the plugins its pytest words
// name (`-p NAME`, `--cov`, `-n 4`) are requirements of the environment (reason `test-command`), so
// the command CI runs finds them; and every runner it names gets a launcher in the environment's
// bin (runtime/env/build/project/venv-launchers.ts), whatever precedes it on the line.
import { distributionForModule } from '../infer/import-map.js';
import { parseRequirement } from '../read/pep508.js';
import type { Planner } from '../planner.js';
import { pluginNeedsOfArgs, type PluginNeed } from '../infer/pytest-plugins.js';
import { isStdlibModule } from '../infer/stdlib.js';
import { lineRunners } from './test-shell.js';

/** A runner known by its program name: the module a launcher runs, the distribution that has it. */
const KNOWN_RUNNERS: Record<string, { module: string; dist: string }> = {
  pytest: { module: 'pytest', dist: 'pytest' },
  'py.test': { module: 'pytest', dist: 'pytest' },
  coverage: { module: 'coverage', dist: 'coverage' },
  nose2: { module: 'nose2', dist: 'nose2' },
  trial: { module: 'twisted.trial', dist: 'twisted' },
  'zope-testrunner': { module: 'zope.testrunner', dist: 'zope.testrunner' },
};
/** Launched in every environment: the runners CI lines name most, whatever the command. */
const ALWAYS_LAUNCHED = ['pytest', 'py.test', 'coverage'];

export interface Launcher {
  program: string;
  module: string;
}

/** The launchers an environment's bin holds for this test command: the usual ones and its own runners. */
export function launchersFor(testCommand: string | null): Launcher[] {
  const named = testCommand
    ? lineRunners(testCommand).flatMap((r) => (r.kind === 'program' ? [r.program] : []))
    : [];
  return [...new Set([...ALWAYS_LAUNCHED, ...named])]
    .filter((program) => KNOWN_RUNNERS[program])
    .map((program) => ({ program, module: KNOWN_RUNNERS[program]!.module }));
}

/** The requirements the command names: runners by program or module, plugins by pytest's words. */
function testCommandNeeds(command: string, source: string): PluginNeed[] {
  const needs: PluginNeed[] = [];
  for (const runner of lineRunners(command)) {
    if (runner.kind === 'program' && KNOWN_RUNNERS[runner.program])
      needs.push({ requirement: KNOWN_RUNNERS[runner.program]!.dist, from: `${source}: ${runner.program}` });
    else if (runner.kind === 'module')
      needs.push({ module: runner.module, from: `${source}: -m ${runner.module}` });
    else if (runner.kind === 'pytest') needs.push(...pluginNeedsOfArgs(runner.args, source));
  }
  return needs;
}

/** A need as a requirement's text, or why it is none. */
function requirementOf(need: PluginNeed): string | { skip: string } {
  if (need.requirement) return need.requirement;
  const dotted = need.module ?? '';
  const top = dotted.split('.')[0] ?? '';
  if (isStdlibModule(top)) return { skip: '' };
  return distributionForModule(top, dotted) ?? { skip: 'no distribution is known for this module' };
}

/**
 * Adds what the test command names. pytest itself is left as the project's sources have it: the
 * sandbox image has one (Debian's python3-pytest), so a project with nothing else to install still
 * runs in the bare image.
 */
export function addTestCommandNeeds(planner: Planner, command: string, from: string): void {
  const source = `the test command (${from})`;
  const seen = new Set<string>();
  for (const need of testCommandNeeds(command, source)) {
    const text = requirementOf(need);
    if (typeof text !== 'string') {
      if (text.skip)
        planner.set.skipped.push({ line: need.module ?? '', from: need.from, reason: text.skip });
      continue;
    }
    const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(text)?.[0] ?? text;
    // `--cov a --cov b --cov-report x`: one source for the plugin, its first word.
    if (seen.has(name)) continue;
    seen.add(name);
    if (planner.set.has(name)) planner.set.note(name, need.from);
    else {
      const requirement = parseRequirement(text);
      if (planner.set.applies(requirement, need.from))
        planner.set.add(requirement, need.from, 'test-command');
    }
  }
}
