// .npmrc (npm and pnpm) and .yarnrc (yarn 1) sanitized to an allowlist of keys before they reach the
// networked download: where packages come from and how the tree is laid out, never credentials
// (`_auth`, `_authToken`, `_password`, `username`, `certfile`, `keyfile`), never a program to run
// (`script-shell`, `git`, `node-options`, `onload-script`, `yarn-path`), never a value that
// expands a variable (`${NPM_TOKEN}`), carries a login in its URL or points the networked download at
// this machine or its private network (download-urls.ts). Each dropped key is a decision; a value
// never is (it may be a secret).
import { refusedUrl } from './download-urls.js';

/** Keys copied as written; `@scope:registry` too. pnpm's lockfile-shaping settings are among them. */
const NPMRC_KEYS = new Set([
  'registry',
  'legacy-peer-deps',
  'strict-peer-deps',
  'omit',
  'include',
  'install-links',
  'auto-install-peers',
  'node-linker',
  'shamefully-hoist',
  'public-hoist-pattern',
  'public-hoist-pattern[]',
  'hoist-pattern',
  'hoist-pattern[]',
  'strict-peer-dependencies',
  'dedupe-peer-dependents',
  'resolve-peers-from-workspace-root',
  'exclude-links-from-lockfile',
  'link-workspace-packages',
  'prefer-workspace-packages',
  'shared-workspace-lockfile',
  'inject-workspace-packages',
  'engine-strict',
  'lockfile',
  'package-lock',
  'save-exact',
]);

/** yarn 1 keys copied (its file is `key value` lines). */
const YARNRC_KEYS = new Set([
  'registry',
  'ignore-engines',
  'ignore-optional',
  'network-timeout',
  'ignore-platform',
]);

/** Whether a value may travel: no variable expansion, no login in a URL, no line breaks. */
function safeValue(value: string): boolean {
  return !value.includes('${') && !/:\/\/[^/\s]*@/.test(value) && !/[\r\n\0]/.test(value);
}

/** Why a value that passed safeValue still may not travel: a URL to a local address. */
function localValue(value: string): string | null {
  const why = refusedUrl(value.replace(/^"|"$/g, ''));
  return why ? `${why}, where the download may not go` : null;
}

/** How a dropped key is named in a decision: a per-registry key (`//host/:_authToken`) by its last part. */
function shownKey(key: string): string {
  return key.startsWith('//')
    ? `${key.slice(key.lastIndexOf(':') + 1)} (of a registry URL)`
    : key.slice(0, 60);
}

function allowedNpmKey(key: string, keys: ReadonlySet<string>): boolean {
  return keys.has(key) || /^@[\w.-]+:registry$/.test(key);
}

/** `text` with only the allowed `key=value` lines; each dropped key a decision naming `path`. */
export function sanitizeNpmrc(text: string, path: string, decisions: string[]): string {
  const kept: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    const key = (eq < 0 ? line : line.slice(0, eq)).trim();
    const value = eq < 0 ? 'true' : line.slice(eq + 1).trim();
    if (!allowedNpmKey(key, NPMRC_KEYS))
      decisions.push(`${path}: ${shownKey(key)} not copied (not an allowed key)`);
    else if (!safeValue(value))
      decisions.push(`${path}: ${shownKey(key)} not copied (its value expands a variable or holds a login)`);
    else if (localValue(value)) decisions.push(`${path}: ${shownKey(key)} not copied (${localValue(value)})`);
    else kept.push(`${key}=${value}`);
  }
  return kept.length ? `${kept.join('\n')}\n` : '';
}

/** yarn 1's `.yarnrc`: `key value` or `"key" "value"` lines, the same rules. */
export function sanitizeYarnrc(text: string, path: string, decisions: string[]): string {
  const kept: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^("[^"]*"|\S+)\s*(.*)$/.exec(line);
    const key = (m?.[1] ?? line).replace(/^"|"$/g, '');
    const value = (m?.[2] ?? '').trim();
    const allowed = YARNRC_KEYS.has(key) || /^@[\w.-]+:registry$/.test(key);
    if (!allowed) decisions.push(`${path}: ${shownKey(key)} not copied (not an allowed key)`);
    else if (!safeValue(value))
      decisions.push(`${path}: ${shownKey(key)} not copied (its value expands a variable or holds a login)`);
    else if (localValue(value)) decisions.push(`${path}: ${shownKey(key)} not copied (${localValue(value)})`);
    else kept.push(`${m?.[1] ?? key} ${value}`);
  }
  return kept.length ? `${kept.join('\n')}\n` : '';
}
