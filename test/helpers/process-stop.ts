// Stopping a service a test started (a second dockerd, a Podman API service): SIGTERM, a bounded
// wait for it to finish its own clean-up, then SIGKILL and a short wait, so it is gone on return.

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `graceMs`: how long it may take after SIGTERM before it is killed. */
export async function stopProcess(pid: number | undefined, graceMs: number): Promise<void> {
  if (!alive(pid)) return;
  process.kill(pid!, 'SIGTERM');
  for (let waited = 0; waited < graceMs && alive(pid); waited += 250) await sleep(250);
  if (alive(pid)) process.kill(pid!, 'SIGKILL');
  for (let i = 0; i < 40 && alive(pid); i++) await sleep(250);
}
