// The read-hash-parse step of the code index: for each file, read it and hash it; a hash equal to
// the indexed one costs nothing more, any other is parsed into rows ready for the ledger.
import { createHash } from 'node:crypto';
import { readRepoFile } from '../../runtime/host/inside-repo.js';
import type { CodeNodeRow } from '../../runtime/ledger/code-entity.js';
import type { StoredCodeFile } from '../../runtime/ledger/code-nodes.js';
import type { Entity } from '../types.js';
import { decodeSource } from './byte-offsets.js';
import { extractEntities } from './extract.js';
import { indexerVersion, type SourceParsers } from './grammars.js';
import { extractScriptEntities } from './script/extract.js';
import type { Walk } from './walk.js';

/** A file whose bytes differ from the indexed ones: read and hashed, not parsed yet. */
export interface PendingFile {
  path: string;
  sha256: string;
  bytes: Uint8Array;
}

export interface Reading {
  pending: PendingFile[];
  unchanged: number;
  unreadable: string[];
}

/** Reads and hashes each file; only the ones whose hash differs from the indexed one are kept. */
export function readChanged(
  root: string,
  paths: string[],
  indexedSha256: (path: string) => string | undefined,
): Reading {
  const reading: Reading = { pending: [], unchanged: 0, unreadable: [] };
  for (const path of paths) {
    // Read only inside the repository, only a regular file, never blocking on a FIFO.
    const bytes = readRepoFile(root, path);
    if (!Buffer.isBuffer(bytes)) {
      reading.unreadable.push(path);
      continue;
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (indexedSha256(path) === sha256) reading.unchanged++;
    else reading.pending.push({ path, sha256, bytes });
  }
  return reading;
}

/** One read file → its rows for the ledger. The bytes parsed are the bytes hashed. */
export function parseFile(parsers: SourceParsers, file: PendingFile, walk?: Walk): StoredCodeFile {
  const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const source = { path: file.path, ...decodeSource(bytes), byteLength: bytes.length };
  const parser = parsers.forPath(file.path);
  const extraction =
    parsers.language === 'python'
      ? extractEntities(parser, source, walk)
      : extractScriptEntities(parser, source);
  return {
    path: file.path,
    sha256: file.sha256,
    syntaxError: extraction.syntaxError,
    indexer: indexerVersion(parsers.language),
    nodes: extraction.nodes,
  };
}

/** The public shape of a stored row (the row's `seq` and `terms` stay inside the index). */
export function entityOf(n: CodeNodeRow): Entity {
  return {
    selector: n.selector,
    kind: n.kind,
    name: n.name,
    path: n.path,
    startLine: n.startLine,
    endLine: n.endLine,
    startByte: n.startByte,
    endByte: n.endByte,
    signature: n.signature,
    doc: n.doc,
    async: n.async,
  };
}

/** Code-unit order: the same on every machine and locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
