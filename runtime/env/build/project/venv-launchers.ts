// The test runners in the environment's bin. The venv sees Debian's packages (system site
// packages), so pytest and coverage are often importable in it with no program of their own there:
// a bare `pytest` on PATH would be Debian's /usr/bin/pytest, whose `#!/usr/bin/python3` sees
// nothing the venv holds, and `coverage` would not be found at all. So the dependencies phase —
// trusted: piper writes these files, no repository code runs — puts a small launcher for each
// runner in the venv's bin (first on the image's PATH), which runs the venv's python with `-m`.
// Whatever precedes the runner on a command line (`VAR=x pytest`, `cd tests && pytest`, `env`,
// `time`, `coverage run -m pytest`), the shell finds the environment's. A project whose own
// install writes a console script of the same name (pytest's own checkout) replaces it later.
import type { BuildBox } from '../build-box.js';
import type { BuildContext } from '../build-context.js';
import { VENV, VENV_PYTHON } from '../../floor/names.js';
import type { StepSpec } from '../build-box.js';
import type { Launcher } from '../../plan/tests/test-programs.js';

const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The shell that writes each launcher (names from piper's own table, checked again here). */
export function launchersStep(launchers: Launcher[]): StepSpec {
  const lines = ['set -e'];
  for (const { program, module } of launchers) {
    if (!SAFE.test(program) || !SAFE.test(module)) throw new Error(`not a launcher name: ${program}`);
    const path = `${VENV}/bin/${program}`;
    lines.push(
      `printf '%s\\n' '#!/bin/sh' '# written by piper-agent: the environment'"'"'s ${program}' 'exec ${VENV_PYTHON} -m ${module} "$@"' >${path}`,
      `chmod 0755 ${path}`,
    );
  }
  return { name: 'launchers', script: lines.join('\n'), timeoutS: 30 };
}

/** Writes the launchers the plan's test command calls for; one source line says which. */
export async function writeLaunchers(ctx: BuildContext, box: BuildBox): Promise<void> {
  const launchers = ctx.spec.launchers;
  ctx.check(await box.run(launchersStep(launchers)), 'launchers');
  ctx.sources.push(
    `launchers in ${VENV}/bin: ${launchers.map((l) => `${l.program} (python -m ${l.module})`).join(', ')}`,
  );
}
