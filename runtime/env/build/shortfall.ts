// What best effort gave up on, one entry per requirement: installed at another version than asked
// (`relaxed`: wanted, got, source) or left out because no source has it (`missing`); a build step
// that fell back to the next best (`degraded`: the project's editable install → its source tree);
// or installed but failing at import (`broken`, import-check.ts: hidden from the tests when it is
// Debian's). Recorded in the ledger's environments row and on the image, said in one line each
// wherever the environment is reported.
import { packLabel, unpackLabel } from '../../text/packed-label.js';

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

/**
 * The environment image's own copy of its build's shortfalls (a label, gzip + base64 of the redacted
 * JSON): a hit read through another ledger than the build's (another `ab` out directory, a copied
 * image) still reports them, and still knows which distributions are broken.
 */
export const SHORTFALLS_LABEL = 'piper.env.shortfalls';

export function shortfallsLabel(shortfalls: Shortfall[], redact: (text: string) => string): string {
  return packLabel(redact(JSON.stringify(shortfalls)));
}

/** The label read back; null when the image has none or it does not read as a list of shortfalls. */
export function shortfallsFromLabel(value: string | undefined): Shortfall[] | null {
  const text = value ? unpackLabel(value) : null;
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return null;
    return parsed.filter(
      (s): s is Shortfall =>
        typeof s === 'object' &&
        s !== null &&
        typeof (s as Shortfall).kind === 'string' &&
        typeof (s as Shortfall).name === 'string',
    );
  } catch {
    return null;
  }
}
