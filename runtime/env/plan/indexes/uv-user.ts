// The user's own uv index settings, read as uv reads them on Linux, so a user who points uv (not
// pip) at a company index gets that index in piper's builds too: UV_DEFAULT_INDEX (else the older
// UV_INDEX_URL), UV_INDEX (`name=url` or a URL, space-separated), UV_EXTRA_INDEX_URL, over the
// user's uv.toml (XDG_CONFIG_HOME/uv, else ~/.config/uv) over the system's (XDG_CONFIG_DIRS/uv,
// else /etc/uv); UV_CONFIG_FILE names the one file instead, UV_NO_CONFIG reads none. A named
// index's login comes from UV_INDEX_<NAME>_USERNAME / _PASSWORD, as uv takes it: it joins the URL
// and is a secret like any URL's (pip-settings.ts redacts and guards them).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { readRegularFile } from '../../../host/open-regular.js';
import { isTable } from '../read/toml.js';
import { addIndex, joinSources, noSources, type IndexSources } from './index-sources.js';
import { readUvSettings } from './uv-settings.js';

const FILE_LIMIT = 1024 * 1024;

export function readUserUv(env: NodeJS.ProcessEnv): IndexSources {
  const out = noSources();
  const set = (name: string) => env[name]?.trim() || null;
  const login = (name: string, url: string) => withLogin(env, name, url);
  // uv's newer name first: the older one is said if it differs.
  for (const name of ['UV_DEFAULT_INDEX', 'UV_INDEX_URL']) {
    const url = set(name);
    if (url) addIndex(out, 'default', url, name);
  }
  for (const entry of (set('UV_INDEX') ?? '').split(/\s+/).filter(Boolean)) {
    const named = /^([A-Za-z0-9][A-Za-z0-9_.-]*)=(.+)$/.exec(entry);
    if (named && named[2]!.includes('://'))
      addIndex(out, 'extra', login(named[1]!, named[2]!), `UV_INDEX ${named[1]}`);
    else addIndex(out, 'extra', entry, 'UV_INDEX');
  }
  for (const url of (set('UV_EXTRA_INDEX_URL') ?? '').split(/\s+/).filter(Boolean))
    addIndex(out, 'extra', url, 'UV_EXTRA_INDEX_URL');
  for (const file of uvConfigFiles(env)) {
    const table = readUvToml(file, out.notes);
    if (table) joinSources(out, readUvSettings(table, file, '', login));
  }
  return out;
}

/** The uv.toml files uv reads, highest precedence first. */
function uvConfigFiles(env: NodeJS.ProcessEnv): string[] {
  const off = env.UV_NO_CONFIG?.trim().toLowerCase();
  if (off && !['0', 'false', 'no', 'off'].includes(off)) return [];
  if (env.UV_CONFIG_FILE?.trim()) return [env.UV_CONFIG_FILE.trim()];
  const home = env.HOME || homedir();
  const user = join(env.XDG_CONFIG_HOME || join(home, '.config'), 'uv', 'uv.toml');
  const systemDirs = (env.XDG_CONFIG_DIRS || '').split(':').filter(Boolean);
  const system = [...systemDirs.map((d) => join(d, 'uv', 'uv.toml')), '/etc/uv/uv.toml'];
  // uv reads the first system file it finds.
  const firstSystem = system.find((f) => !('error' in readOrError(f)));
  return firstSystem ? [user, firstSystem] : [user];
}

function readOrError(file: string): Buffer | { error: string; kind: string } {
  return readRegularFile(file, { limit: FILE_LIMIT, name: file, what: 'your uv configuration' });
}

/** A uv.toml as a table; null (said, unless it is simply not there) when it cannot be used. */
function readUvToml(file: string, notes: string[]): Record<string, unknown> | null {
  const data = readOrError(file);
  if (!Buffer.isBuffer(data)) {
    if (data.kind !== 'missing') notes.push(`your uv configuration ${file} was not read (${data.error})`);
    return null;
  }
  try {
    const table = parse(data.toString('utf8'));
    return isTable(table) ? table : null;
  } catch (error) {
    notes.push(`your uv configuration ${file} is not valid TOML (${String(error).split('\n')[0]}); not used`);
    return null;
  }
}

/** The URL with uv's login for the index `name`, when the user set one and the URL has none. */
function withLogin(env: NodeJS.ProcessEnv, name: string, url: string): string {
  const key = `UV_INDEX_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  const user = env[`${key}_USERNAME`]?.trim();
  const password = env[`${key}_PASSWORD`]?.trim();
  if (!user && !password) return url;
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) return url;
    parsed.username = encodeURIComponent(user ?? '');
    if (password) parsed.password = encodeURIComponent(password);
    return parsed.toString();
  } catch {
    return url;
  }
}
