import { describe, expect, it } from 'vitest';
import { guardSecrets, maskSecrets } from '../../runtime/text/output-guard.js';

describe('maskSecrets', () => {
  it('masks every registered secret, raw and as JSON writes it, longest first', () => {
    guardSecrets(['pa"ss\\word', 'tok', 'tokenvalue-1', 'tokenvalue-12']);
    expect(maskSecrets('a tokenvalue-12 b tokenvalue-1 c')).toBe('a *** b *** c');
    expect(maskSecrets(JSON.stringify({ url: 'http://u:pa"ss\\word@h/' }))).toBe('{"url":"http://u:***@h/"}');
    // Too short to be told from an ordinary word: never masked.
    expect(maskSecrets('the tok of it')).toBe('the tok of it');
  });
});
