// The two tools whose calls run in a sandbox container and leave an executions row, named as the
// ledger stores them. The ledger depends on these names in three records: a one-shot run of either
// (`piper-agent run-test`, `piper-agent execute`) is a run of that kind; the start-up sweep counts
// their calls as not run until a container exists; and a run is verified by the test tool's
// recorded exit code. Their tool modules (primitives/tools/run-test/tool.ts, execute/tool.ts) are typed to
// these names, so a rename cannot split them.
export const SANDBOX_TOOL = { test: 'run_test', compute: 'execute' } as const;

export type SandboxToolName = (typeof SANDBOX_TOOL)[keyof typeof SANDBOX_TOOL];

export function isSandboxTool(tool: string): tool is SandboxToolName {
  return tool === SANDBOX_TOOL.test || tool === SANDBOX_TOOL.compute;
}
