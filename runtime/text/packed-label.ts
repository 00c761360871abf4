// Text an image keeps in a label (what a build's steps said, its shortfalls): gzip, then base64, as a
// long list would make a long label (and one long Dockerfile line). Read back from an image the
// engine holds, which anything with the engine's socket can have made, so a label that does not
// unpack, or unpacks past 4 MiB, reads as nothing.
import { gunzipSync, gzipSync } from 'node:zlib';

const MAX_UNPACKED_BYTES = 4 * 1024 * 1024;

export function packLabel(text: string): string {
  return gzipSync(text).toString('base64');
}

/** The label's text, or null when it is not one packLabel made (or too large unpacked). */
export function unpackLabel(label: string): string | null {
  try {
    return gunzipSync(Buffer.from(label, 'base64'), { maxOutputLength: MAX_UNPACKED_BYTES }).toString('utf8');
  } catch {
    return null;
  }
}
