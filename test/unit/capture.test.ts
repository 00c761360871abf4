import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StreamCapture } from '../../runtime/sandbox/capture.js';
import { AttachDemuxer } from '../../runtime/sandbox/demux.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('StreamCapture', () => {
  it('keeps everything under the cap', () => {
    const c = new StreamCapture(100);
    c.write(Buffer.from('hello '));
    c.write(Buffer.from('wörld'));
    expect(c.result()).toEqual({
      text: 'hello wörld',
      bytes: Buffer.byteLength('hello wörld'),
      sha256: sha(Buffer.from('hello wörld')),
      truncated: false,
    });
  });

  it('keeps head and tail, counts and hashes everything', () => {
    const c = new StreamCapture(20);
    const all: Buffer[] = [];
    for (let i = 0; i < 1000; i++) {
      const chunk = Buffer.from(`line ${i}\n`);
      all.push(chunk);
      c.write(chunk);
    }
    const full = Buffer.concat(all);
    const r = c.result();
    expect(r.truncated).toBe(true);
    expect(r.bytes).toBe(full.length);
    expect(r.sha256).toBe(sha(full));
    expect(r.text.startsWith(full.subarray(0, 10).toString())).toBe(true);
    expect(r.text.endsWith(full.subarray(full.length - 10).toString())).toBe(true);
    expect(r.text).toContain(`[... ${full.length - 20} bytes not kept ...]`);
  });

  it('never splits a UTF-8 character at the cut', () => {
    const c = new StreamCapture(9);
    c.write(Buffer.from('ééééééééééééééé')); // 2 bytes each
    const r = c.result();
    expect(r.text).not.toContain('\ufffd');
    expect(r.text).toMatch(/^é+\n\[\.\.\. \d+ bytes not kept \.\.\.\]\né+$/);
  });

  it('handles a 4-byte character split across writes at the head boundary', () => {
    const c = new StreamCapture(6);
    const emoji = Buffer.from('a🐍🐍🐍🐍');
    for (const byte of emoji) c.write(Buffer.from([byte]));
    expect(c.result().text).not.toContain('\ufffd');
    expect(c.result().bytes).toBe(emoji.length);
  });
});

describe('AttachDemuxer', () => {
  function frame(type: 1 | 2, payload: string): Buffer {
    const body = Buffer.from(payload);
    const header = Buffer.alloc(8);
    header[0] = type;
    header.writeUInt32BE(body.length, 4);
    return Buffer.concat([header, body]);
  }

  it('splits stdout and stderr even when frames are cut at every byte', () => {
    const stream = Buffer.concat([frame(1, 'out-1 '), frame(2, 'err-1'), frame(1, 'out-2'), frame(2, '')]);
    for (const step of [1, 3, 7, 8, 64]) {
      let out = '';
      let err = '';
      const d = new AttachDemuxer(
        (c) => (out += c.toString()),
        (c) => (err += c.toString()),
      );
      for (let i = 0; i < stream.length; i += step) d.push(stream.subarray(i, i + step));
      expect([out, err]).toEqual(['out-1 out-2', 'err-1']);
    }
  });
});
