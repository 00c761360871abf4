// PEP 503 name normalization: runs of '-', '_' and '.' become one '-', all lower case. Two
// requirements name the same distribution exactly when their normalized names are equal.
export function normalizeName(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}
