// The code index's cache in the ledger (tables code_files and code_nodes, migration 2). The index
// itself lives in primitives/index; this module only stores and loads its rows, keyed by repo root
// + path, so an unchanged file (same sha256, same indexer) is never parsed twice.
import { RuntimeError } from '../errors.js';
import type { CodeNodeRow, EntityKind } from './code-entity.js';
import type { Ledger } from './ledger.js';

export interface CodeFileRow {
  path: string;
  sha256: string;
  syntaxError: boolean;
  /** The extractor version that produced the nodes. */
  indexer: string;
}

export interface StoredCodeFile extends CodeFileRow {
  nodes: CodeNodeRow[];
}

interface RawNode {
  path: string;
  seq: number;
  selector: string;
  kind: EntityKind;
  name: string;
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
  signature: string;
  doc: string | null;
  async: number;
  terms: string;
}

export function listCodeFiles(ledger: Ledger, repo: string): CodeFileRow[] {
  return guard('read the code index', () => {
    const rows = ledger.database
      .prepare(`SELECT path, sha256, syntax_error, indexer FROM code_files WHERE repo = ? ORDER BY path`)
      .all(repo) as Array<{ path: string; sha256: string; syntax_error: number; indexer: string }>;
    return rows.map((r) => ({
      path: r.path,
      sha256: r.sha256,
      syntaxError: r.syntax_error === 1,
      indexer: r.indexer,
    }));
  });
}

/** Every stored node of the repo, grouped by path, each group in definition order. */
export function loadCodeNodes(ledger: Ledger, repo: string): Map<string, CodeNodeRow[]> {
  return guard('read the code index', () => {
    const rows = ledger.database
      .prepare(
        `SELECT path, seq, selector, kind, name, start_line, end_line, start_byte, end_byte, signature, doc, async, terms
         FROM code_nodes WHERE repo = ? ORDER BY path, seq`,
      )
      .all(repo) as RawNode[];
    const byPath = new Map<string, CodeNodeRow[]>();
    for (const r of rows) {
      let group = byPath.get(r.path);
      if (!group) byPath.set(r.path, (group = []));
      group.push({
        seq: r.seq,
        selector: r.selector,
        kind: r.kind,
        name: r.name,
        path: r.path,
        startLine: r.start_line,
        endLine: r.end_line,
        startByte: r.start_byte,
        endByte: r.end_byte,
        signature: r.signature,
        doc: r.doc,
        async: r.async === 1,
        terms: r.terms,
      });
    }
    return byPath;
  });
}

/** Replaces the rows of each given file (its old nodes go with it), all in one transaction. */
export function saveCodeFiles(ledger: Ledger, repo: string, files: StoredCodeFile[]): void {
  if (files.length === 0) return;
  guard('write the code index', () => {
    const db = ledger.database;
    const drop = db.prepare(`DELETE FROM code_files WHERE repo = ? AND path = ?`);
    const file = db.prepare(
      `INSERT INTO code_files (repo, path, sha256, syntax_error, indexer, indexed_at) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const node = db.prepare(
      `INSERT INTO code_nodes (repo, path, seq, selector, kind, name, start_line, end_line, start_byte, end_byte,
         signature, doc, async, terms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const at = new Date().toISOString();
    db.transaction(() => {
      for (const f of files) {
        drop.run(repo, f.path);
        file.run(repo, f.path, f.sha256, Number(f.syntaxError), f.indexer, at);
        for (const n of f.nodes) {
          node.run(
            repo,
            f.path,
            n.seq,
            n.selector,
            n.kind,
            n.name,
            n.startLine,
            n.endLine,
            n.startByte,
            n.endByte,
            n.signature,
            n.doc,
            Number(n.async),
            n.terms,
          );
        }
      }
    })();
  });
}

/** Forgets files that are gone from the repo (their nodes cascade). */
export function dropCodeFiles(ledger: Ledger, repo: string, paths: string[]): void {
  if (paths.length === 0) return;
  guard('write the code index', () => {
    const drop = ledger.database.prepare(`DELETE FROM code_files WHERE repo = ? AND path = ?`);
    ledger.database.transaction(() => {
      for (const p of paths) drop.run(repo, p);
    })();
  });
}

function guard<T>(what: string, body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (error instanceof RuntimeError) throw error;
    throw new RuntimeError('ledger_error', `cannot ${what}: ${(error as Error).message}`, undefined, {
      cause: error,
    });
  }
}
