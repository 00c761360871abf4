// What a failed `pip install` said, read from its output: the index could not be reached, or a
// requirement has no version that satisfies it (with the versions the sources do have), or
// something else (a conflict, a build failure) that names no single requirement.
const UNREACHABLE =
  /Failed to establish a new connection|Temporary failure in name resolution|Name or service not known|Network is unreachable|No route to host|Connection refused|ConnectTimeoutError|Read timed out|ProxyError|Max retries exceeded/;
// A dependency's requirement names its parent: `foo>=1 (from bar) (from versions: none)`. pip 20.3
// (Debian bullseye's, Python 3.9) names no versions at all: `... the requirement foo==1.4.1`, a line
// of its own; read as `none`, so that its sdist is still fetched instead of the whole set failing.
const NOT_FOUND =
  /Could not find a version that satisfies the requirement (\S+)(?: \(from (?!versions:)[^)]*\))?(?: \(from versions: ([^)]*)\))?/;

export type PipFailure =
  | { kind: 'unreachable'; line: string }
  | { kind: 'not_found'; requirement: string; name: string; versions: string[] }
  | { kind: 'other'; line: string };

export function readPipFailure(output: string): PipFailure {
  const notFound = NOT_FOUND.exec(output);
  const versions =
    notFound?.[2] === undefined || notFound[2].trim() === 'none'
      ? []
      : notFound[2].split(/,\s*/).filter(Boolean);
  const reached = versions.length > 0;
  const unreachable = UNREACHABLE.exec(output);
  // "from versions: none" after connection errors says nothing about the package: the index was not reached.
  if (unreachable && !reached) return { kind: 'unreachable', line: lineOf(output, unreachable.index) };
  if (notFound) {
    const requirement = notFound[1]!;
    const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(requirement)?.[0] ?? requirement;
    return { kind: 'not_found', requirement, name, versions };
  }
  const errors = output.split('\n').filter((l) => l.startsWith('ERROR:'));
  return {
    kind: 'other',
    line: (errors.at(-1) ?? output.trim().split('\n').at(-1) ?? '').replace(/^ERROR: /, ''),
  };
}

function lineOf(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  return text
    .slice(start, end < 0 ? undefined : end)
    .trim()
    .slice(0, 200);
}
