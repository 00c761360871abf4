// The registry the user's own npm configuration names, and its login: where piper's toolchain and
// every networked install download from. Read, never written: no registry's address is in piper's
// files; with nothing configured, npm itself is asked (`npm config get registry`), which answers
// with its built-in default.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface NpmRegistry {
  /** Ends with '/'. */
  url: string;
  /** The registry's token from the user's npmrc (`//host/path/:_authToken`); exec-only in a box. */
  token: string | null;
  /** Where the URL came from: a variable, the npmrc, or npm itself. */
  from: string;
}

/** `key=value` lines of an npmrc, `${VAR}` expanded from the environment (as npm does). */
export function parseNpmrc(text: string, env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const value = line
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .replace(/\$\{([^}]+)\}/g, (_, name: string) => env[name] ?? '');
    out.set(line.slice(0, at).trim(), value);
  }
  return out;
}

function userNpmrc(env: NodeJS.ProcessEnv): { path: string; entries: Map<string, string> } {
  const path =
    env.NPM_CONFIG_USERCONFIG || env.npm_config_userconfig || join(env.HOME || homedir(), '.npmrc');
  try {
    return { path, entries: parseNpmrc(readFileSync(path, 'utf8'), env) };
  } catch {
    return { path, entries: new Map() };
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** The token the npmrc holds for `url`: the longest `//host/path/:_authToken` prefix of it. */
export function tokenFor(url: string, entries: Map<string, string>): string | null {
  const bare = url.replace(/^https?:/, '');
  let best: { key: string; value: string } | null = null;
  for (const [key, value] of entries) {
    if (!key.endsWith(':_authToken')) continue;
    const prefix = key.slice(0, -':_authToken'.length);
    if (bare.startsWith(withSlash(prefix)) && (!best || prefix.length > best.key.length))
      best = { key: prefix, value };
  }
  return best?.value || null;
}

/** The user's registry: NPM_CONFIG_REGISTRY, else the user's npmrc `registry`, else npm's own answer. */
export function npmRegistry(env: NodeJS.ProcessEnv = process.env): NpmRegistry {
  const npmrc = userNpmrc(env);
  const variable = env.NPM_CONFIG_REGISTRY || env.npm_config_registry;
  let url: string;
  let from: string;
  if (variable) [url, from] = [variable, 'NPM_CONFIG_REGISTRY'];
  else if (npmrc.entries.get('registry')) [url, from] = [npmrc.entries.get('registry')!, npmrc.path];
  else [url, from] = [askNpm(env), 'npm config get registry'];
  url = withSlash(url);
  return { url, token: tokenFor(url, npmrc.entries), from };
}

function askNpm(env: NodeJS.ProcessEnv): string {
  const out = execFileSync('npm', ['config', 'get', 'registry'], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  if (!/^https?:\/\//.test(out))
    throw new Error(`npm config get registry said ${JSON.stringify(out.slice(0, 80))}, not a URL`);
  return out;
}
