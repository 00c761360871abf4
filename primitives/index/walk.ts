// The two ways the extractor can visit a tree's defs and identifiers in document order (a def
// opens a scope, every identifier counts as a name used in the innermost open scope: extract.ts).
import type { Node, Tree } from 'web-tree-sitter';

/** Called once per node in document order; `end()` and `node()` cross into WASM only when asked. */
type Visit = (type: string, start: number, end: () => number, node: () => Node) => void;
export type Walk = (tree: Tree, visit: Visit) => void;

const WALKED_TYPES = ['function_definition', 'class_definition', 'identifier'];

/**
 * The defs and identifiers, fetched from WASM in one call. Walking every node with a cursor
 * crossed the boundary several times per node, punctuation and keywords too: ~60% of a file's
 * parse and extract (measured with --cpu-prof). Both walks give the same rows.
 */
export const walkDefsAndNames: Walk = (tree, visit) => {
  for (const node of tree.rootNode.descendantsOfType(WALKED_TYPES)) {
    if (node)
      visit(
        node.type,
        node.startIndex,
        () => node.endIndex,
        () => node,
      );
  }
};

/** Every node, depth first with a cursor: the extractor's older walk, kept as bench/index.ts's baseline. */
export const walkEveryNode: Walk = (tree, visit) => {
  const cursor = tree.walk();
  try {
    for (;;) {
      visit(
        cursor.nodeType,
        cursor.startIndex,
        () => cursor.endIndex,
        () => cursor.currentNode,
      );
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return;
    }
  } finally {
    cursor.delete();
  }
};
