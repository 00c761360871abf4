// The index as of a date (the PIPER_INDEX_DATE setting, an instance's created_at): the one reading
// of its text, which the spec records and the build's dated view of the index filters by.

/** The cutoff as epoch milliseconds: a date (midnight UTC) or an ISO date and time; null if neither. */
export function parseCutoff(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{4}-\d\d-\d\d([T ][\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(trimmed)) return null;
  const iso = /^\d{4}-\d\d-\d\d$/.test(trimmed) ? `${trimmed}T00:00:00Z` : trimmed.replace(' ', 'T');
  const ms = Date.parse(/Z|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(ms) ? null : ms;
}
