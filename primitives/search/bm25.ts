// Okapi BM25 over documents that come and go one at a time: the code index adds and removes the
// entities of one file after an edit, so postings are kept per term and updated in place instead
// of rebuilt. Scores are summed in query-term order, so equal inputs give equal floats.

const K1 = 1.2;
const B = 0.75;

export interface Scored<K> {
  id: K;
  score: number;
}

export class Bm25Index<K> {
  private readonly postings = new Map<string, Map<K, number>>();
  private readonly lengths = new Map<K, number>();
  private readonly termsOf = new Map<K, string[]>();
  private totalLength = 0;

  get size(): number {
    return this.lengths.size;
  }

  add(id: K, terms: string[]): void {
    if (this.lengths.has(id)) this.remove(id);
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = new Map()));
      posting.set(id, tf);
    }
    this.lengths.set(id, terms.length);
    this.termsOf.set(id, [...counts.keys()]);
    this.totalLength += terms.length;
  }

  remove(id: K): void {
    const terms = this.termsOf.get(id);
    if (!terms) return;
    for (const term of terms) {
      const posting = this.postings.get(term);
      posting?.delete(id);
      if (posting?.size === 0) this.postings.delete(term);
    }
    this.totalLength -= this.lengths.get(id) ?? 0;
    this.lengths.delete(id);
    this.termsOf.delete(id);
  }

  /** Every document with a positive score, unsorted. Repeated query terms count once. */
  score(query: string[]): Scored<K>[] {
    const n = this.lengths.size;
    if (n === 0) return [];
    const avg = this.totalLength / n || 1;
    const totals = new Map<K, number>();
    for (const term of new Set(query)) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [id, tf] of posting) {
        const len = this.lengths.get(id) ?? 0;
        const part = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg));
        totals.set(id, (totals.get(id) ?? 0) + part);
      }
    }
    return [...totals].map(([id, score]) => ({ id, score }));
  }
}
