// What the engine's event log says of one container after the fact. A container the engine removed
// on its exit (AutoRemove: a warm container, warm-container.ts) cannot be inspected for its OOM
// kill any more; its `oom` event stays in the log, which answers for a past window and ends.
import type Docker from 'dockerode';

/** Whether the engine logged an OOM kill of container `id` between `sinceMs` and now. */
export async function oomEventSince(docker: Docker, id: string, sinceMs: number): Promise<boolean> {
  const stream = (await docker.getEvents({
    since: seconds(sinceMs - 1000),
    until: seconds(Date.now()),
    filters: JSON.stringify({ type: ['container'], container: [id], event: ['oom'] }),
  } as unknown as Docker.GetEventsOptions)) as unknown as AsyncIterable<Buffer>;
  let text = '';
  for await (const chunk of stream) text += chunk.toString('utf8');
  return text.split('\n').some((line) => line.includes('"oom"'));
}

/** The engine takes fractional seconds, so the window ends exactly now and the log answers at once. */
function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}
