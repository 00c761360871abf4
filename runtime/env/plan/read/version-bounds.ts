// How large a version specifier or a version may be before it is refused. The PEP 440 library
// evaluates a specifier clause by clause, at a cost that grows with the number of clauses (a
// 690,000-clause requires-python, 4 MB and under every file cap, took 61 s and 2.6 GB on every
// command) and faster than linearly with one version's length (a version of a million parts, a
// minute). Both bounds sit far above anything a project writes, and are checked wherever text a
// repository, an index or a build step gave becomes a specifier or a version.

/** The clauses one specifier may have (`>=1,<2,!=1.5` is three). */
export const MAX_SPECIFIER_CLAUSES = 64;
/** The characters one version may have. */
export const MAX_VERSION_LENGTH = 128;

/** How many comma-separated clauses `specifier` has, counted no further than one past the bound. */
function clauseCount(specifier: string): number {
  let count = 1;
  for (let at = specifier.indexOf(','); at >= 0; at = specifier.indexOf(',', at + 1))
    if (++count > MAX_SPECIFIER_CLAUSES) return count;
  return count;
}

/** Why `specifier` is too large to evaluate, or null: one line, naming the bound. */
export function oversizedSpecifier(specifier: string): string | null {
  if (clauseCount(specifier) > MAX_SPECIFIER_CLAUSES)
    return `it has more than ${MAX_SPECIFIER_CLAUSES} clauses, the most a specifier may have`;
  const longest = specifier
    .split(',', MAX_SPECIFIER_CLAUSES)
    .reduce((n, c) => Math.max(n, c.trim().length), 0);
  if (longest > MAX_VERSION_LENGTH + 3)
    return `a clause is longer than the ${MAX_VERSION_LENGTH} characters a version may have`;
  return null;
}

/** Whether `version` is short enough to be compared. */
export function boundedVersion(version: string): boolean {
  return version.length <= MAX_VERSION_LENGTH;
}

/** Repository text quoted in a sentence: at most `max` characters, the rest counted. */
export function quoted(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
