// Syntax findings of a TypeScript/JavaScript file, as tree-sitter reads it: each ERROR node (text it
// could not fit) and each MISSING node (a token it had to assume). The gate blocks only findings an
// edit adds (diagnostic.ts), so where the grammar lags the language (a proposal it does not know
// yet) the file's old findings stay old and no edit is refused for them.
import type { Node } from 'web-tree-sitter';
import { sourceParsers } from '../index/grammars.js';
import type { Diagnostic } from './diagnostic.js';

/** An edit that breaks a file badly finds no more than this many; the first ones say enough. */
const MAX_FINDINGS = 20;
/** How much of the text tree-sitter could not fit a finding quotes. */
const QUOTE = 30;

export async function scriptSyntaxDiagnostics(source: string, filename: string): Promise<Diagnostic[]> {
  const parser = (await sourceParsers('javascript')).forPath(filename);
  const tree = parser.parse(source);
  if (!tree) throw new Error('tree-sitter returned no tree (the parser has no language)');
  try {
    const found: Diagnostic[] = [];
    if (tree.rootNode.hasError) collect(tree.rootNode, found);
    return found;
  } finally {
    tree.delete();
  }
}

/** Depth first into the subtrees that hold an error only: an intact subtree costs one check. */
function collect(node: Node, found: Diagnostic[]): void {
  for (const child of node.children) {
    if (!child || found.length >= MAX_FINDINGS) return;
    if (child.isMissing) found.push(finding(child, 'missing', `missing \`${child.type}\``));
    else if (child.type === 'ERROR') found.push(finding(child, 'syntax-error', unexpected(child)));
    else if (child.hasError) collect(child, found);
  }
}

function unexpected(node: Node): string {
  const text = node.text.replace(/\s+/g, ' ').trim();
  const quoted = text.length > QUOTE ? `${text.slice(0, QUOTE)}…` : text;
  return quoted ? `unexpected \`${quoted}\`` : 'unexpected end of input';
}

function finding(node: Node, code: string, message: string): Diagnostic {
  return { code, message, line: node.startPosition.row + 1, column: node.startPosition.column + 1 };
}
