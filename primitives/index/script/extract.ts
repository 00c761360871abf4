// One TypeScript/JavaScript file → its entities (entities.ts says which), in the rows the Python
// extractor makes: selector, span, signature (decorators and the header up to the body), the first
// line of the JSDoc comment above, and the names lexical search needs. A file with a syntax error
// yields whatever tree-sitter recovered, and the flag says so.
import type { Node, Parser } from 'web-tree-sitter';
import type { CodeNodeRow } from '../../../runtime/ledger/code-entity.js';
import { ByteOffsets } from '../byte-offsets.js';
import { endLineOf, firstLine, lineCount, type Extraction, type SourceFile } from '../extract.js';
import { ENTITY_TYPES, NAME_TYPES, candidateOf, storedKind, type Candidate } from './entities.js';
import { parseWith } from '../python-parser.js';
import { moduleName, moduleSelector } from '../selector.js';

/** Enough names per entity for lexical search, as for Python. */
const MAX_NAMES = 2000;
const SIGNATURES = new Set(['function_signature', 'method_signature']);
const NAMES = new Set(NAME_TYPES);

interface Scope {
  row: CodeNodeRow;
  names: string[];
  docText: string;
  end: number;
  members: number | null;
  /** The function whose body is this entity's: declarations directly in it are its children. */
  owner: number | null;
}

export function extractScriptEntities(parser: Parser, file: SourceFile): Extraction {
  const { text } = file;
  const tree = parseWith(parser, text);
  try {
    const offsets = new ByteOffsets(text, file.oneBytePerUnit);
    const nodes = tree.rootNode.descendantsOfType([...ENTITY_TYPES, ...NAME_TYPES]);
    const overloaded = new Set<string>();
    for (const n of nodes)
      if (n && SIGNATURES.has(n.type)) overloaded.add(n.childForFieldName('name')?.text ?? '');
    const module = moduleScope(file);
    const scopes: Scope[] = [module];
    const stack: Scope[] = [module];
    for (const node of nodes) {
      if (!node) continue;
      const start = node.startIndex;
      while (stack.length > 1 && stack[stack.length - 1]!.end <= start) stack.pop();
      const top = stack[stack.length - 1]!;
      if (NAMES.has(node.type)) {
        if (top.names.length < MAX_NAMES) top.names.push(text.slice(start, node.endIndex));
        continue;
      }
      const candidate = candidateOf(node, { members: top.members, owner: top.owner, overloaded });
      if (!candidate) continue;
      const scope = scopeOf(candidate, top, scopes.length, file, offsets);
      scopes.push(scope);
      stack.push(scope);
    }
    for (const s of scopes) s.row.terms = `${s.docText}\n${s.names.join(' ')}`.trim();
    return { nodes: scopes.map((s) => s.row), syntaxError: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

function moduleScope(file: SourceFile): Scope {
  return {
    row: {
      seq: 0,
      selector: moduleSelector(file.path),
      kind: 'module',
      name: moduleName(file.path),
      path: file.path,
      startLine: 1,
      endLine: lineCount(file.text),
      startByte: 0,
      endByte: file.byteLength,
      signature: '',
      doc: null,
      async: false,
      terms: '',
    },
    names: [],
    docText: '',
    end: Number.POSITIVE_INFINITY,
    members: null,
    owner: null,
  };
}

function scopeOf(c: Candidate, parent: Scope, seq: number, file: SourceFile, offsets: ByteOffsets): Scope {
  const { first, last } = c.span;
  const doc = jsDocAbove(first, file.text);
  return {
    row: {
      seq,
      selector: `${parent.row.selector}.${c.name}`,
      kind: storedKind(c.kind),
      name: c.name,
      path: file.path,
      startLine: first.startPosition.row + 1,
      endLine: endLineOf(last),
      startByte: offsets.toByte(first.startIndex),
      endByte: offsets.toByte(last.endIndex),
      signature: signatureOf(c, file.text),
      doc: firstLine(doc),
      async: c.async,
      terms: '',
    },
    names: [],
    docText: doc ?? '',
    end: last.endIndex,
    members: c.members?.id ?? null,
    // A class, an object or a namespace is no function: what is declared in it is its parent's.
    owner: c.kind === 'function' || c.kind === 'method' ? (c.body?.parent?.id ?? null) : parent.owner,
  };
}

/** Decorators, `export` and the header up to the body (or the first line), later lines dedented. */
function signatureOf(c: Candidate, text: string): string {
  const start = c.span.first.startIndex;
  let end = c.body && c.body.startIndex > start ? c.body.startIndex : -1;
  if (end < 0) {
    const nl = text.indexOf('\n', start);
    end = nl < 0 ? c.span.last.endIndex : Math.min(nl, c.span.last.endIndex);
  }
  const raw = text.slice(start, end).trimEnd();
  const indent = c.span.first.startPosition.column;
  if (indent === 0 || !raw.includes('\n')) return raw;
  const pattern = new RegExp(`^[ \\t]{0,${indent}}`);
  return raw
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.replace(pattern, '')))
    .join('\n');
}

/** The text of a `/** … *\/` comment right above the entity, without its stars; null when none. */
function jsDocAbove(node: Node, text: string): string | null {
  const before = node.previousSibling;
  if (!before || before.type !== 'comment') return null;
  const comment = text.slice(before.startIndex, before.endIndex);
  if (!comment.startsWith('/**') || text.slice(before.endIndex, node.startIndex).trim() !== '') return null;
  return comment
    .slice(3, -2)
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n');
}
