// How the loop runs each tool it can call: the six registry tools through LoopTools.run, and the
// harness's own lint (the post-edit lint trigger's tool) through LoopTools.lintFile. The trust gate
// checks what a tool captured against its declared result; lint is the harness's verdict on a file,
// which is what the gate would compare an edit against, so it is recorded trusted as produced.
import type { DispatchOptions } from '../../runtime/ledger/dispatch.js';
import type { ExecutedLike, LoopTools } from '../loop-types.js';
import { TOOL_NAMES, type ToolName } from '../registry.js';
import type { LoopStrategy, Trust } from './strategy.js';

export type LoopToolName = ToolName | 'lint';

interface LoopTool {
  run(
    tools: LoopTools,
    args: Record<string, unknown>,
    origin: 'model' | 'trigger',
    turnId?: number,
    /** The id the proposal announced, and the hook told once the call's row is written. */
    dispatch?: DispatchOptions,
  ): Promise<ExecutedLike>;
  /** The trust verdict the call's observation is stored with. */
  verdict(gate: LoopStrategy['gate'], args: Record<string, unknown>, exec: ExecutedLike): Verdict;
}

type Verdict = { trust: Trust; caveat?: string };

const registryTool = (tool: ToolName): LoopTool => ({
  run: (tools, args, origin, turnId, dispatch) => tools.run({ tool, args }, origin, turnId, dispatch),
  verdict: (gate, args, exec) => gate({ tool, args, result: exec.result, receipt: exec.receipt }),
});

export const LOOP_TOOLS: Readonly<Record<LoopToolName, LoopTool>> = {
  ...(Object.fromEntries(TOOL_NAMES.map((tool) => [tool, registryTool(tool)])) as Record<ToolName, LoopTool>),
  lint: {
    run: (tools, args, _origin, turnId, dispatch) =>
      tools.lintFile(String(args.selector), String(args.path), turnId, dispatch),
    verdict: () => ({ trust: 'trusted' }),
  },
};
