// The line a fix run leaves on stderr when SIGINT/SIGTERM stops it: what happened, how to go on
// with the run (resume), and how to undo it only when it has edits to undo.

export function interruptNote(signal: string, runId: string | undefined, edited: boolean): string {
  if (runId === undefined) return `${signal}: stopped before the run started; nothing to resume or undo\n`;
  const stopped = `${signal}: run ${runId} stopped; its running container was removed and its ledger rows marked.`;
  const resume = `Continue it with: piper-agent resume ${runId}`;
  return edited
    ? `${stopped} ${resume}; undo its edits with: piper-agent undo ${runId}\n`
    : `${stopped} It made no edits. ${resume}\n`;
}
