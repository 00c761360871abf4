// Percentiles for the benchmarks (nearest-rank on sorted samples).
export function percentile(samples: number[], p: number): number {
  if (!samples.length) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[rank]! * 10) / 10;
}

export function printTable(rows: Array<[string, string | number]>): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) process.stderr.write(`${k.padEnd(width)}  ${v}\n`);
}
