// Gold labels for a SWE-bench instance: the tool a careful agent picks at its first three decision
// points, derived from the gold patch the way piperbench's were written by hand
// (eval/tasks/piperbench/README.md): locate the patched entity — `search_symbol` when the problem
// statement names it (the def or class the first gold edit changes, or the class around it), else
// `search_code` for the behaviour it describes — then `read_entity` it, then `edit_entity` it. An
// instance whose fix touches no def or class (module level, non-Python) has no labels: selection
// accuracy is not measured on it rather than measured against a guess.
import { editEntityTool } from '../../primitives/tools/edit-entity/tool.js';
import { readEntityTool } from '../../primitives/tools/read-entity/tool.js';
import { searchCodeTool } from '../../primitives/tools/search-code/tool.js';
import { searchSymbolTool } from '../../primitives/tools/search-symbol/tool.js';
import type { GoldEdit } from './gold-edits.js';

/** The names a statement may call the entity by: its own, and its class's when it is a method. */
function entityNames(edit: GoldEdit): string[] {
  // module.path.Class.method or module.path.function: the last part is the entity; the one before
  // it is a class when capitalized (modules are lowercase), else a module, which names no entity.
  const parts = edit.selector.split('.');
  const last = parts[parts.length - 1]!;
  const before = parts[parts.length - 2] ?? '';
  const names = /^[A-Z]/.test(before) ? [last, before] : [last];
  // `__init__` and the like are named by their class, never by themselves.
  return names.filter((n) => n.length > 2 && !/^__\w+__$/.test(n));
}

function mentions(statement: string, name: string): boolean {
  return new RegExp(`(^|[^\\w])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\w]|$)`).test(statement);
}

export function goldLabelsOf(statement: string, edits: readonly GoldEdit[]): string[] {
  const first = edits[0];
  if (!first) return [];
  const named = entityNames(first).some((name) => mentions(statement, name));
  return [(named ? searchSymbolTool : searchCodeTool).name, readEntityTool.name, editEntityTool.name];
}
