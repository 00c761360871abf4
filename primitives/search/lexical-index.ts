// Lexical retrieval over entities (search_code's default): BM25 where an entity's document is its
// name (weighted up), its selector's path, its signature, its whole docstring and the names its
// body uses. Kept in step with the code index file by file, so an edit costs one file's entities.
import type { Entity } from '../types.js';
import { Bm25Index } from './bm25.js';
import { tokenize } from './tokenize.js';
import { appendAll } from '../../runtime/text/append.js';

/** How many times each field counts: a hit in the name says more than one in the body. */
const NAME_WEIGHT = 3;
const SIGNATURE_WEIGHT = 2;
/**
 * A module's document is short (its docstring and top-level names), so BM25's length
 * normalisation would put it above the def that does what its docstring names; the def is the
 * more useful answer, so module scores are halved.
 */
const MODULE_PRIOR = 0.5;

export interface LexicalDocument {
  /** Unique per definition (duplicated selectors are separate documents). */
  key: string;
  entity: Entity;
  /** Full docstring + names used in the body, as the extractor stored them. */
  terms: string;
}

export class LexicalIndex {
  private readonly bm25 = new Bm25Index<string>();
  private readonly entities = new Map<string, Entity>();

  add(doc: LexicalDocument): void {
    this.bm25.add(doc.key, documentTerms(doc));
    this.entities.set(doc.key, doc.entity);
  }

  remove(key: string): void {
    this.bm25.remove(key);
    this.entities.delete(key);
  }

  get size(): number {
    return this.bm25.size;
  }

  /** The documents with a positive score for the query, unsorted. */
  score(query: string): Array<{ entity: Entity; score: number }> {
    const terms = tokenize(query);
    if (terms.length === 0) return [];
    return this.bm25.score(terms).map((s) => {
      const entity = this.entities.get(s.id)!;
      return { entity, score: entity.kind === 'module' ? s.score * MODULE_PRIOR : s.score };
    });
  }
}

function documentTerms(doc: LexicalDocument): string[] {
  const { entity } = doc;
  const name = tokenize(entity.name);
  const out: string[] = [];
  for (let i = 0; i < NAME_WEIGHT; i++) appendAll(out, name);
  // The selector minus the name: the module path and enclosing classes.
  appendAll(out, tokenize(entity.selector.slice(0, entity.selector.length - entity.name.length)));
  const signature = tokenize(entity.signature);
  for (let i = 0; i < SIGNATURE_WEIGHT; i++) appendAll(out, signature);
  appendAll(out, tokenize(doc.terms));
  return out;
}
