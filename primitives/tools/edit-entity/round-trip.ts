// The trust gate's round-trip check of a committed edit, on the diff the ledger recorded: the search
// text was replaced by the replace text, exactly once (tool.ts applies it).

/**
 * Re-asserts on the recorded diff what the primitive enforced: the replacement happened, once.
 * Common leading/trailing text of search and replace is set aside, so only the part that changed
 * must show: its old form on a hunk's old side (context and `-` lines), its new form on the same
 * hunk's new side (context and `+` lines). Exactly one hunk must show it. Known limit: a single
 * replacement whose changed part spans more than 6 unchanged lines is split by the diff into two
 * hunks and reads as not shown.
 */
export function editRoundTrip(search: string, replace: string, diff: string): string | null {
  if (search === replace) return null;
  const { before, after } = changedCores(search, replace);
  const hunks = parseHunks(diff);
  if (hunks.length === 0) return 'committed edit has no diff hunk';
  const showing = hunks.filter((hunk) => hunk.old.includes(before) && hunk.new.includes(after)).length;
  if (showing === 0) return 'committed edit diff does not show the search text replaced by the replace text';
  if (showing > 1) return `committed edit diff shows the replacement ${showing} times, not once`;
  return null;
}

function changedCores(search: string, replace: string): { before: string; after: string } {
  let start = 0;
  while (start < search.length && start < replace.length && search[start] === replace[start]) start++;
  let end = 0;
  while (
    end < search.length - start &&
    end < replace.length - start &&
    search[search.length - 1 - end] === replace[replace.length - 1 - end]
  ) {
    end++;
  }
  return {
    before: search.slice(start, search.length - end),
    after: replace.slice(start, replace.length - end),
  };
}

/** The old and new side of each hunk of a unified diff. */
function parseHunks(diff: string): Array<{ old: string; new: string }> {
  const hunks: Array<{ old: string[]; new: string[] }> = [];
  let current: { old: string[]; new: string[] } | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      current = { old: [], new: [] };
      hunks.push(current);
    } else if (!current || line.startsWith('\\')) continue;
    else if (line.startsWith('-')) current.old.push(line.slice(1));
    else if (line.startsWith('+')) current.new.push(line.slice(1));
    else {
      // A context line (' '), or an empty line where a tool stripped the context line's space.
      current.old.push(line.slice(1));
      current.new.push(line.slice(1));
    }
  }
  return hunks.map((hunk) => ({ old: hunk.old.join('\n'), new: hunk.new.join('\n') }));
}
