// Entities a script defines by assignment at its top level, as CommonJS and pre-class code does:
// `exports.parse = function () {}`, `module.exports = { … }`, `Router.prototype.route = function () {}`,
// `res.send = function send() {}`. Each is named by what it assigns to, as written, less the
// `module.exports.` / `exports.` a reader of the module does not see: `parse`,
// `exports` (the module's export object itself), `Router.prototype.route`, `res.send`.
import type { Node } from 'web-tree-sitter';

const PART = /^[A-Za-z_$][\w$]*$/;

export interface Assigned {
  name: string;
  value: Node;
  /** The statement: what the entity spans. */
  statement: Node;
}

/** The top-level assignment `node` is, named; null for any other assignment. */
export function assignedAt(node: Node): Assigned | null {
  const statement = node.parent;
  if (statement?.type !== 'expression_statement' || statement.parent?.type !== 'program') return null;
  const left = node.childForFieldName('left');
  const value = node.childForFieldName('right');
  if (!left || !value || left.type !== 'member_expression') return null;
  const parts = memberPath(left);
  if (!parts) return null;
  if (parts[0] === 'module' && parts[1] === 'exports') parts.shift();
  if (parts[0] === 'exports' && parts.length > 1) parts.shift();
  return { name: parts.join('.'), value, statement };
}

/** `a.b.c` as its parts; null when any part is computed (`a[b]`) or a call. */
function memberPath(node: Node): string[] | null {
  const parts: string[] = [];
  let at: Node | null = node;
  while (at?.type === 'member_expression') {
    const property = at.childForFieldName('property');
    if (!property || !PART.test(property.text)) return null;
    parts.unshift(property.text);
    at = at.childForFieldName('object');
  }
  if (!at || at.type !== 'identifier' || !PART.test(at.text)) return null;
  parts.unshift(at.text);
  return parts;
}
