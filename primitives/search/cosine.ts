// Cosine similarity of two embedding vectors, shared by search_code's dense retrieval and the
// policy's embedding retrieval of tools. Vectors that cannot be compared (different or zero
// lengths, a zero or non-finite norm) throw, so each caller falls back to its lexical ranking.
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || a.length !== b.length)
    throw new Error(`vectors of length ${a.length} and ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  const result = dot / Math.sqrt(na * nb);
  if (!Number.isFinite(result)) throw new Error('a zero or non-finite embedding vector');
  return result;
}
