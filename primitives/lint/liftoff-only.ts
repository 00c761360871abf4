// ruff's WASM module (~10 MB) is compiled by V8's baseline compiler (Liftoff) only, never
// re-compiled by its optimizing one (TurboFan). By default V8 tiers the module up on background
// threads for seconds after the first check, and a process's exit waits for those threads to
// finish (Node's platform shutdown joins them): an interrupted `fix` took 6–8 s from its clean-up
// to its exit, a finished one as long. The tier-up also competes with the run for the CPU, so on
// a small machine Liftoff-only checks are not slower either (measured on 2 shared cores: the first
// check of a 117 kB file 0.6–1.7 s against 2.2 s, later ones 5–30 ms against 20–47 ms).
// V8 reads the flag when a module is compiled, so it is set before ruff is imported; it holds for
// every WASM module compiled after it in this process.
import { setFlagsFromString } from 'node:v8';

let set = false;

export function liftoffOnly(): void {
  if (set) return;
  set = true;
  setFlagsFromString('--liftoff-only');
}
