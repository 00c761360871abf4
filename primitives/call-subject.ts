// The argument a call is about: the selector of a read or edit, the query of a search, the target of
// a test, the code of an execute. The ledger's observations name it as their target; the A/B
// runner's ablation matches calls by it.
export function callSubject(tool: string, args: Record<string, unknown>): string {
  const value =
    tool === 'read_entity' || tool === 'edit_entity'
      ? args.selector
      : tool === 'run_test'
        ? args.target
        : tool === 'execute'
          ? args.code
          : args.query;
  return typeof value === 'string' ? value : '';
}
