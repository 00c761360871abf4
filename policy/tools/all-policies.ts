// Each tool's policy module by the tool's name: the table validation, the trust gate and retrieval
// read. Keyed by the tool modules' own names and typed per key, so a tool without a policy (or a
// policy for a tool that does not exist) does not compile.
import type { ToolName } from '../../primitives/tools/all-tools.js';
import { editEntityTool } from '../../primitives/tools/edit-entity.js';
import { executeTool } from '../../primitives/tools/execute.js';
import { readEntityTool } from '../../primitives/tools/read-entity.js';
import { runTestTool } from '../../primitives/tools/run-test.js';
import { searchCodeTool } from '../../primitives/tools/search-code.js';
import { searchSymbolTool } from '../../primitives/tools/search-symbol.js';
import { editEntityPolicy } from './edit-entity.js';
import { executePolicy } from './execute.js';
import { readEntityPolicy } from './read-entity.js';
import { runTestPolicy } from './run-test.js';
import { searchCodePolicy } from './search-code.js';
import { searchSymbolPolicy } from './search-symbol.js';
import type { ToolPolicy } from './tool-policy.js';

const POLICIES: { readonly [N in ToolName]: ToolPolicy<N> } = {
  [readEntityTool.name]: readEntityPolicy,
  [searchSymbolTool.name]: searchSymbolPolicy,
  [searchCodeTool.name]: searchCodePolicy,
  [editEntityTool.name]: editEntityPolicy,
  [runTestTool.name]: runTestPolicy,
  [executeTool.name]: executePolicy,
};

export function toolPolicy<N extends ToolName>(name: N): ToolPolicy<N> {
  return POLICIES[name];
}
