// Reading what a build step printed: pip's install report and `pip list`, dpkg-query's lines, the
// Debian packages apt did not know, and whether an installed version meets a requirement. Pure
// functions of the text; a step's output is untrusted, so every parser tolerates garbage.
import { satisfies } from '@renovatebot/pep440';
import type { PlannedRequirement } from '../plan/types.js';
import { boundedVersion } from '../plan/read/version-bounds.js';

export function unsatisfied(
  wanted: PlannedRequirement[],
  versions: Record<string, string | null>,
): PlannedRequirement[] {
  return wanted.filter((q) => {
    const v = versions[q.normalized];
    if (!v) return true;
    if (!q.specifier) return false;
    // A version no project writes (metadata is a downloaded file's word): not compared, not met.
    if (!boundedVersion(v)) return true;
    try {
      return !satisfies(v, q.specifier);
    } catch {
      return true;
    }
  });
}

export function pipReport(stdout: string): Array<{ name: string; version: string }> {
  const at = stdout.indexOf('piper-pip-report\n');
  if (at < 0) return [];
  try {
    const report = JSON.parse(stdout.slice(at + 'piper-pip-report\n'.length)) as {
      install?: Array<{ metadata?: { name?: string; version?: string } }>;
    };
    return (report.install ?? []).flatMap((i) =>
      i.metadata?.name && i.metadata.version ? [{ name: i.metadata.name, version: i.metadata.version }] : [],
    );
  } catch {
    return [];
  }
}

export function dpkgLines(stdout: string): Array<[string, string]> {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('piper-dpkg '))
    .map((l) => {
      const [, pkg = '', version = ''] = l.split(' ');
      return [pkg, version];
    });
}

export function missingLines(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('piper-missing '))
    .map((l) => l.slice('piper-missing '.length).trim());
}

export function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

export function lastLines(text: string, n = 6): string {
  return text.trim().split('\n').slice(-n).join('\n');
}
