// `target.push(...items)` passes every item as an argument to one call, and an argument list has a
// limit (the call stack): a requirements file of 130,000 lines, a directory of 200,000 files or a
// long file a patch rewrites would crash with RangeError. Input-sized lists are appended here, one
// by one.

/** Appends every item of `items` to `target`, in order; returns `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The largest of `values` (`fallback` for none), without spreading them into Math.max. */
export function maxOf(values: Iterable<number>, fallback = 0): number {
  let max: number | undefined;
  for (const value of values) if (max === undefined || value > max) max = value;
  return max ?? fallback;
}
