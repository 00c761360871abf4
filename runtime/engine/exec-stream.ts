// A non-Tty exec's hijacked socket: stdin written then closed (when given), the multiplexed
// stdout/stderr demultiplexed to the caller as it arrives, settled when the stream ends.
import type { Duplex, Readable } from 'node:stream';
import { AttachDemuxer } from '../sandbox/demux.js';

export function drainExec(
  stream: Duplex,
  stdin: Readable | undefined,
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const demux = new AttachDemuxer(
      (chunk) => onOutput('stdout', chunk),
      (chunk) => onOutput('stderr', chunk),
    );
    stream.on('data', (chunk: Buffer) => demux.push(chunk));
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
    if (stdin) {
      stdin.on('error', reject);
      stdin.pipe(stream);
    }
  });
}
