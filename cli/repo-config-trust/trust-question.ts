// What the user is asked about a repository's config keys, shared by the question's two sides: the
// prompt that asks it (cli/tui) and the step that acts on the answer (settle.ts), which loads the
// prompt only on a terminal.
import { inert } from '../../runtime/text/inert.js';
import type { IgnoredKey } from '../../core/repo-config-trust/repo-narrowing.js';

export interface TrustQuestion {
  /** The repository's config file. */
  file: string;
  keys: IgnoredKey[];
}

/** A key's value as the prompt and `piper-agent config` show it: secrets redacted, controls inert. */
export function shownValue(key: IgnoredKey): string {
  if (key.key === 'apiKey') return '(a key, redacted)';
  return inert(typeof key.value === 'string' ? key.value : JSON.stringify(key.value));
}
