// What best effort gave up on, one entry per requirement: installed at another version than asked
// (`relaxed`: wanted, got, source) or left out because no source has it (`missing`); or a build
// step that fell back to the next best (`degraded`: the project's editable install → its source tree); or installed
// but failing at import (`broken`, import-check.ts: hidden from the tests when it is Debian's). Recorded in the
// ledger's environments row, said in one line each wherever the environment is reported.
export interface Shortfall {
  kind: 'relaxed' | 'missing' | 'degraded' | 'broken';
  name: string;
  /** The specifier asked for (or the requirement line when it has none). */
  wanted: string;
  got: string | null;
  source: string | null;
  /** Where the requirement was declared. */
  from: string;
  /** Only imported under a guard (try/except ImportError, importorskip): the tests skip without it. */
  optional: boolean;
  /** What each source said. */
  why: string;
}

export function shortfallLine(s: Shortfall): string {
  const optional = s.optional ? ', optional' : '';
  if (s.kind === 'degraded') return `degraded: ${s.name} ${s.wanted} → ${s.got} (${s.why})`;
  if (s.kind === 'broken') return `broken: ${s.name} ${s.got} (${s.source}${optional}; ${s.why})`;
  return s.kind === 'relaxed'
    ? `relaxed: ${s.name} ${s.wanted} → ${s.got} (${s.source}${optional})`
    : `missing: ${s.name} ${s.wanted} (no source has it${optional}; from ${s.from})`;
}
