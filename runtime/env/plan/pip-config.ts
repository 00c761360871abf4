// The user's own pip configuration, read the way pip reads it on Linux, so an environment build
// uses the index a `pip install` on this machine would: the configuration files (site-wide, then
// the user's, then PIP_CONFIG_FILE; a later file overrides, and in each file [download] and then
// [install] override [global]: a build downloads, then stands in for the user's `pip install`), then
// the PIP_* environment variables over all of them. Only the keys that say where
// packages come from, and how long pip waits for them, are read. PIP_CONFIG_FILE=/dev/null turns the files off, as in pip.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseIni } from './read/ini.js';

export interface UserPipConfig {
  indexUrl: string | null;
  extraIndexUrls: string[];
  findLinks: string[];
  trustedHosts: string[];
  /** pip's `timeout` (seconds per request) and `retries` as written; null when unset. */
  timeout: string | null;
  retries: string | null;
  /** `PIP_INDEX_URL` or `pip.conf [global] index-url`: where each setting was read, for the record. */
  from: string[];
  /** How the networked steps reach the index (network/pip-network.ts): as written, null when unset. */
  cert: string | null;
  clientCert: string | null;
  proxy: string | null;
  noIndex: string | null;
  constraints: string[];
  /** Where each of those was read (`PIP_CERT`, `/etc/pip.conf [global] cert`). */
  origin: Partial<Record<'cert' | 'clientCert' | 'proxy' | 'noIndex' | 'constraints', string>>;
}

/**
 * Each setting's pip.conf keys and variables, the later winning: pip's `--default-timeout` is an
 * alias of `--timeout`, so PIP_DEFAULT_TIMEOUT and `default-timeout` count, below the plain name.
 */
const KEYS = {
  indexUrl: [['index-url'], ['PIP_INDEX_URL']],
  extraIndexUrls: [['extra-index-url'], ['PIP_EXTRA_INDEX_URL']],
  findLinks: [['find-links'], ['PIP_FIND_LINKS']],
  trustedHosts: [['trusted-host'], ['PIP_TRUSTED_HOST']],
  timeout: [
    ['default-timeout', 'timeout'],
    ['PIP_DEFAULT_TIMEOUT', 'PIP_TIMEOUT'],
  ],
  retries: [['retries'], ['PIP_RETRIES']],
  cert: [['cert'], ['PIP_CERT']],
  clientCert: [['client-cert'], ['PIP_CLIENT_CERT']],
  proxy: [['proxy'], ['PIP_PROXY']],
  noIndex: [['no-index'], ['PIP_NO_INDEX']],
  constraints: [['constraint'], ['PIP_CONSTRAINT']],
} as const;

type Field = keyof typeof KEYS;
const FIELDS = Object.keys(KEYS) as Field[];

/** The sections pip's download and install commands read, lowest precedence first. */
const SECTIONS = ['global', 'download', 'install'];

/** The configuration files pip reads, lowest precedence first. */
function pipConfigFiles(env: NodeJS.ProcessEnv): string[] {
  if (env.PIP_CONFIG_FILE === '/dev/null') return [];
  const home = env.HOME || homedir();
  const xdgDirs = (env.XDG_CONFIG_DIRS || '/etc/xdg').split(':').filter(Boolean);
  const files = [
    ...xdgDirs.map((d) => join(d, 'pip', 'pip.conf')),
    '/etc/pip.conf',
    join(home, '.pip', 'pip.conf'),
    join(env.XDG_CONFIG_HOME || join(home, '.config'), 'pip', 'pip.conf'),
  ];
  if (env.VIRTUAL_ENV) files.push(join(env.VIRTUAL_ENV, 'pip.conf'));
  if (env.PIP_CONFIG_FILE) files.push(env.PIP_CONFIG_FILE);
  return files;
}

export function readUserPipConfig(env: NodeJS.ProcessEnv): UserPipConfig {
  const values = new Map<Field, { value: string; from: string }>();
  for (const file of pipConfigFiles(env)) {
    const sections = readConfigFile(file);
    if (!sections) continue;
    for (const section of SECTIONS)
      for (const field of FIELDS)
        for (const key of KEYS[field][0]) {
          const value = sections.get(section)?.get(key);
          if (value !== undefined) values.set(field, { value, from: `${file} [${section}] ${key}` });
        }
  }
  for (const field of FIELDS)
    for (const variable of KEYS[field][1]) {
      const value = env[variable];
      // An empty variable is unset: tests and CI clear the user's settings that way.
      if (value !== undefined && value.trim() !== '') values.set(field, { value, from: variable });
    }
  const list = (field: Field) => (values.get(field)?.value ?? '').split(/\s+/).filter(Boolean);
  return {
    indexUrl: values.get('indexUrl')?.value.trim() || null,
    extraIndexUrls: list('extraIndexUrls'),
    findLinks: list('findLinks'),
    trustedHosts: list('trustedHosts'),
    timeout: values.get('timeout')?.value.trim() || null,
    retries: values.get('retries')?.value.trim() || null,
    from: [...values.values()].map((v) => v.from),
    cert: values.get('cert')?.value.trim() || null,
    clientCert: values.get('clientCert')?.value.trim() || null,
    proxy: values.get('proxy')?.value.trim() || null,
    noIndex: values.get('noIndex')?.value.trim() || null,
    constraints: list('constraints'),
    origin: Object.fromEntries(
      (['cert', 'clientCert', 'proxy', 'noIndex', 'constraints'] as const).flatMap((f) => {
        const from = values.get(f)?.from;
        return from ? [[f, from]] : [];
      }),
    ),
  };
}

/** A pip.conf as INI sections; null when it is not a readable regular file or not INI. */
function readConfigFile(file: string): Map<string, Map<string, string>> | null {
  try {
    if (!existsSync(file) || !statSync(file).isFile()) return null;
    return parseIni(readFileSync(file, 'utf8'), file);
  } catch {
    return null;
  }
}
