// Who owns a container or a ledger row: this host, this process id, and the process's start
// time, so a recycled pid is not mistaken for the owner that died. Written into container labels
// and ledger rows; the start-up sweep uses it to find what a dead process left behind.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface Owner {
  host: string;
  pid: number;
  /** Process start time in clock ticks since boot (/proc/PID/stat field 22), '' where unknown. */
  started: string;
}

/**
 * The id of the Docker container this process runs in, or null on a plain host. Docker bind-mounts
 * the container's hostname and resolv.conf from /var/lib/docker/containers/<id>/, which shows in
 * mountinfo. Sibling sandboxes carry it as a label, so the host's sweep can tell when that
 * container (and so their owner) is gone, although the owner's pid means nothing on the host.
 */
export function ownContainerId(): string | null {
  try {
    const match = /\/containers\/([0-9a-f]{64})\//.exec(readFileSync('/proc/self/mountinfo', 'utf8'));
    return match ? match[1]! : null;
  } catch {
    return null;
  }
}

export function currentOwner(): Owner {
  return { host: hostname(), pid: process.pid, started: processStart(process.pid) ?? '' };
}

export function formatOwner(owner: Owner): string {
  return `${owner.host}:${owner.pid}:${owner.started}`;
}

export function parseOwner(text: string): Owner | null {
  const match = /^(.*):(\d+):(\d*)$/.exec(text);
  if (!match) return null;
  return { host: match[1]!, pid: Number(match[2]), started: match[3]! };
}

/**
 * Whether the owner still runs. Owners on another host (another container beside the same
 * engine) cannot be checked from here and count as alive: we never remove what we cannot judge.
 */
export function ownerAlive(owner: Owner): boolean {
  if (owner.host !== hostname()) return true;
  const started = processStart(owner.pid);
  if (started === null) return false;
  return owner.started === '' || started === owner.started;
}

function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; fields after the last ')' are safe.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall
  } catch {
    return null;
  }
}
