// One Python file → its entities: the module, every class and def (methods, nested ones, async and
// decorated defs), each with selector, span, signature and first docstring line, plus the words
// lexical search needs (the full docstring and the names used in the body). A file with a syntax
// error yields whatever tree-sitter recovered, and the flag says so.
import type { Node, Parser } from 'web-tree-sitter';
import type { CodeNodeRow } from '../../runtime/ledger/code-entity.js';
import { ByteOffsets } from './byte-offsets.js';
import { walkDefsAndNames, type Walk } from './walk.js';
import { parseWith } from './python-parser.js';
import { moduleName, moduleSelector } from './selector.js';

export interface Extraction {
  nodes: CodeNodeRow[];
  syntaxError: boolean;
}

export interface SourceFile {
  /** Relative to the repo root, '/' separators. */
  path: string;
  text: string;
  /** See ByteOffsets: true when offsets in `text` are byte offsets too. */
  oneBytePerUnit: boolean;
  byteLength: number;
}

/** Enough names per entity for lexical search; a generated 10,000-line function needs no more. */
const MAX_NAMES = 2000;

interface Scope {
  row: CodeNodeRow;
  names: string[];
  docText: string;
  /** UTF-16 end of the entity's span: nodes starting here or later are outside it. */
  end: number;
}

export function extractEntities(parser: Parser, file: SourceFile, walk: Walk = walkDefsAndNames): Extraction {
  const { text } = file;
  const tree = parseWith(parser, text);
  try {
    const offsets = new ByteOffsets(text, file.oneBytePerUnit);
    const root = tree.rootNode;
    const moduleDoc = docstringOf(root, text);
    const module: Scope = {
      row: {
        seq: 0,
        selector: moduleSelector(file.path),
        kind: 'module',
        name: moduleName(file.path),
        path: file.path,
        startLine: 1,
        endLine: lineCount(text),
        startByte: 0,
        endByte: file.byteLength,
        signature: '',
        doc: firstLine(moduleDoc),
        async: false,
        terms: '',
      },
      names: [],
      docText: moduleDoc ?? '',
      end: Number.POSITIVE_INFINITY,
    };
    const scopes: Scope[] = [module];
    const stack: Scope[] = [module];

    walk(tree, (type, start, end, node) => {
      while (stack.length > 1 && stack[stack.length - 1]!.end <= start) stack.pop();
      const top = stack[stack.length - 1]!;
      if (type === 'function_definition' || type === 'class_definition') {
        const scope = defineEntity(node(), top, scopes.length, file, offsets);
        if (scope) {
          scopes.push(scope);
          stack.push(scope);
        }
      } else if (type === 'identifier' && top.names.length < MAX_NAMES) {
        top.names.push(text.slice(start, end()));
      }
    });

    for (const s of scopes) s.row.terms = `${s.docText}\n${s.names.join(' ')}`.trim();
    return { nodes: scopes.map((s) => s.row), syntaxError: root.hasError };
  } finally {
    tree.delete();
  }
}

function defineEntity(
  node: Node,
  parent: Scope,
  seq: number,
  file: SourceFile,
  offsets: ByteOffsets,
): Scope | null {
  const nameNode = node.childForFieldName('name');
  // A def whose name did not parse is no entity; its names count for the enclosing one.
  if (!nameNode || nameNode.isMissing || nameNode.startIndex === nameNode.endIndex) return null;
  const { text } = file;
  const name = text.slice(nameNode.startIndex, nameNode.endIndex);
  const decorated = node.parent?.type === 'decorated_definition' ? node.parent : null;
  const span = decorated ?? node;
  const isClass = node.type === 'class_definition';
  const doc = docstringOf(node.childForFieldName('body'), text);
  return {
    row: {
      seq,
      selector: `${parent.row.selector}.${name}`,
      kind: isClass ? 'class' : parent.row.kind === 'class' ? 'method' : 'function',
      name,
      path: file.path,
      startLine: span.startPosition.row + 1,
      endLine: endLineOf(span),
      startByte: offsets.toByte(span.startIndex),
      endByte: offsets.toByte(span.endIndex),
      signature: signatureOf(node, span, text),
      doc: firstLine(doc),
      async: !isClass && node.child(0)?.type === 'async',
      terms: '',
    },
    names: [],
    docText: doc ?? '',
    end: span.endIndex,
  };
}

/** Decorators + the header up to its colon, later lines dedented to the first one's column. */
function signatureOf(def: Node, span: Node, text: string): string {
  let headerEnd = -1;
  const body = def.childForFieldName('body');
  let before = body ? body.previousSibling : null;
  while (before && before.type === 'comment') before = before.previousSibling;
  if (before && before.type === ':') headerEnd = before.endIndex;
  if (headerEnd < 0) {
    // No body parsed (a syntax error): the header is the def's first line.
    const nl = text.indexOf('\n', def.startIndex);
    headerEnd = nl < 0 ? def.endIndex : Math.min(nl, def.endIndex);
  }
  const raw = text.slice(span.startIndex, headerEnd);
  const indent = span.startPosition.column;
  if (indent === 0 || !raw.includes('\n')) return raw.trimEnd();
  const pattern = new RegExp(`^[ \\t]{0,${indent}}`);
  return raw
    .split('\n')
    .map((line, i) => (i === 0 ? line : line.replace(pattern, '')))
    .join('\n')
    .trimEnd();
}

/**
 * The first named child that is not a comment. With a cursor: a node's next sibling is found from
 * its parent in tree-sitter, so stepping `nextNamedSibling` over a file of 200,000 comment lines
 * was quadratic (minutes for `index`); a cursor steps in constant time.
 */
function firstStatement(block: Node): Node | null {
  const cursor = block.walk();
  try {
    if (!cursor.gotoFirstChild()) return null;
    do {
      if (cursor.nodeIsNamed && cursor.nodeType !== 'comment') return cursor.currentNode;
    } while (cursor.gotoNextSibling());
    return null;
  } finally {
    cursor.delete();
  }
}

/** The docstring of a module or a def's body: its first statement, when that is a plain string. */
function docstringOf(block: Node | null, text: string): string | null {
  if (!block) return null;
  const first = firstStatement(block);
  if (!first || first.type !== 'expression_statement' || first.namedChildCount !== 1) return null;
  const value = first.firstNamedChild;
  if (!value) return null;
  if (value.type === 'string') return stringValue(text.slice(value.startIndex, value.endIndex));
  if (value.type === 'concatenated_string') {
    const parts = value.namedChildren.map((c) =>
      c ? stringValue(text.slice(c.startIndex, c.endIndex)) : null,
    );
    return parts.every((p) => p !== null) ? parts.join('') : null;
  }
  return null;
}

/** The contents of a string literal; null for bytes and f-strings, which are no docstrings. */
function stringValue(literal: string): string | null {
  const match = /^([rRuUbBfF]*)('''|"""|'|")/.exec(literal);
  if (!match) return null;
  const prefix = match[1]!.toLowerCase();
  if (prefix.includes('b') || prefix.includes('f')) return null;
  const open = match[0].length;
  const quote = match[2]!;
  const close = literal.endsWith(quote) && literal.length >= open + quote.length ? quote.length : 0;
  return literal.slice(open, literal.length - close);
}

export function firstLine(doc: string | null): string | null {
  if (doc === null) return null;
  for (const line of doc.split('\n')) {
    const trimmed = line.trim();
    if (trimmed) return trimmed;
  }
  return null;
}

export function endLineOf(node: Node): number {
  const end = node.endPosition;
  // A span that ends right after a newline ends on the line before.
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}

export function lineCount(text: string): number {
  if (text.length === 0) return 1;
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}
