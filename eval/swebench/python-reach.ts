// Whether the Python an instance needs is one the sandbox can give. The harness's spec names the
// Python each repository version was tested on; the sandbox has only the Debian releases' Pythons
// this machine reaches (3.13, 3.11, 3.9). An instance whose spec names another (3.5 to 3.8, 3.10)
// is not built on a Python its pins were never meant for: validation keeps it out of the valid
// count with this reason, one line naming the Python.
import { SANDBOX_PYTHONS } from '../../runtime/env/plan/read/marker-env.js';
import { specEntry } from './harness-spec.js';
import type { SweInstance } from './instance-file.js';

export function unreachablePython(instance: SweInstance): string | null {
  const python = specEntry(instance)?.spec.python;
  if (!python || (SANDBOX_PYTHONS as readonly string[]).includes(python)) return null;
  return `needs Python ${python} (the SWE-bench harness's spec for ${instance.repo} ${instance.version}), which no reachable source carries (the sandbox has ${SANDBOX_PYTHONS.join(', ')})`;
}
