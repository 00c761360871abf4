// How the networked steps of a build reach the user's index, read on the host as pip on this
// machine would find it, for an index behind a company's TLS inspection, proxy or login:
//   - the CA bundle pip verifies the index with: pip's `cert` (PIP_CERT, then pip.conf), else the
//     variables pip's HTTP stack reads (SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE), else the
//     host's system bundle, which pip's system trust store reads on this machine — a box made from a
//     bare Debian has none of a company's CAs, and the index then "does not answer";
//   - pip's `client-cert` (a PEM with its private key: a secret);
//   - the proxy variables (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY, either case) and pip's own
//     `proxy`; a proxy URL may hold credentials;
//   - the netrc file pip reads logins from (NETRC, else ~/.netrc): its passwords are secrets;
//   - pip's `no-index` and `constraint` files, which decide what is downloaded (so they are in the
//     keys; the rest is not: a new CA or password is the same environment).
// The files are copied into a networked box only, just before its steps, and removed after them
// (build/network/index-files.ts); the variables go in those execs' environment only, never an
// argument, an image's configuration or a key. What reaches the record is what was used and where
// it came from, never a file's contents or a secret.
import { SYSTEM_CA_BUNDLES } from '../../floor/ca-bundles.js';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readRegularFile } from '../../../host/open-regular.js';
import type { UserPipConfig } from '../pip-config.js';
import { netrcSecrets } from './netrc.js';
import { redactUrl } from '../read/redact.js';
import { secretsOf } from '../secrets.js';

/** Where the files go in a networked box: not under /opt/piper, whose directories are carried out. */
export const INDEX_FILES_DIR = '/run/piper-index';

export interface IndexFile {
  /** The file's name in INDEX_FILES_DIR. */
  name: string;
  data: Buffer;
  mode: number;
}

export interface PipNetwork {
  /** Copied into each networked box before its steps and removed after them. */
  files: IndexFile[];
  /** The networked execs' variables: paths in the box, the proxies. */
  env: string[];
  /** pip's `no-index`: no index is asked (find-links only). */
  noIndex: boolean;
  /** pip's `constraint` files (their content's sha256) or URLs (redacted), for the keys. */
  constraints: string[];
  /** The URLs whose credentials are secrets (the proxies), and the other secrets (netrc passwords). */
  urls: string[];
  secrets: string[];
  /** What the networked steps get and from where (no file's contents, no secret); null: nothing. */
  said: string | null;
  notes: string[];
}

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'];
/** A CA bundle, a client certificate, a netrc or a constraints file: the user's own, but bounded. */
const FILE_LIMIT = 16 * 1024 * 1024;

export function readPipNetwork(
  user: UserPipConfig,
  env: NodeJS.ProcessEnv,
  /** tls false: no index pip may reach speaks TLS, so no CA bundle or client certificate is put. */
  opts: { systemBundles?: string[]; cwd?: string; tls?: boolean } = {},
): PipNetwork {
  const out: PipNetwork = {
    files: [],
    env: [],
    noIndex: false,
    constraints: [],
    urls: [],
    secrets: [],
    said: null,
    notes: [],
  };
  const said: string[] = [];
  const cwd = opts.cwd ?? process.cwd();
  const tls = opts.tls ?? true;
  const ca = tls ? caBundle(user, env, opts.systemBundles ?? SYSTEM_CA_BUNDLES, cwd, out.notes) : null;
  if (ca) {
    const path = addFile(out, 'ca.pem', ca.data, 0o644);
    // pip reads PIP_CERT; piper's own scripts (Python's ssl) read SSL_CERT_FILE.
    out.env.push(`PIP_CERT=${path}`, `SSL_CERT_FILE=${path}`);
    said.push(`the CA bundle of ${ca.from}`);
  }
  if (tls && user.clientCert) {
    const from = user.origin.clientCert ?? 'client-cert';
    const data = readUserFile(resolve(cwd, user.clientCert), `your client certificate (${from})`, out.notes);
    if (data) {
      out.env.push(`PIP_CLIENT_CERT=${addFile(out, 'client.pem', data, 0o600)}`);
      said.push(`the client certificate of ${from}`);
    }
  }
  const proxies = proxySettings(user, env);
  if (proxies.env.length) {
    out.env.push(...proxies.env);
    out.urls.push(...proxies.urls);
    said.push(`the proxy of ${proxies.from.join(', ')}`);
  }
  const netrc = netrcFile(env, out.notes);
  if (netrc) {
    out.env.push(`NETRC=${addFile(out, 'netrc', netrc.data, 0o600)}`);
    out.secrets.push(...netrc.secrets);
    said.push(`the logins of ${netrc.from}`);
  }
  out.noIndex = noIndexSetting(user, out.notes);
  if (out.noIndex) {
    out.env.push('PIP_NO_INDEX=1');
    said.push(`no index (${user.origin.noIndex ?? 'no-index'}: find-links only)`);
  }
  const constraints = constraintFiles(out, user, cwd);
  if (constraints.length) {
    out.env.push(`PIP_CONSTRAINT=${constraints.join(' ')}`);
    said.push(`${out.constraints.length} constraints file(s) of ${user.origin.constraints ?? 'constraint'}`);
  }
  out.said = said.length ? `pip's connection: ${said.join('; ')}` : null;
  return out;
}

function addFile(out: PipNetwork, name: string, data: Buffer, mode: number): string {
  out.files.push({ name, data, mode });
  return `${INDEX_FILES_DIR}/${name}`;
}

/** The first CA bundle in pip's order that is a readable file, and what named it. */
function caBundle(
  user: UserPipConfig,
  env: NodeJS.ProcessEnv,
  systemBundles: string[],
  cwd: string,
  notes: string[],
): { data: Buffer; from: string } | null {
  const named: Array<[string, string]> = [];
  if (user.cert) named.push([user.cert, user.origin.cert ?? 'cert']);
  for (const variable of ['SSL_CERT_FILE', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE']) {
    const value = env[variable]?.trim();
    if (value) named.push([value, variable]);
  }
  for (const [path, from] of named) {
    const data = readUserFile(resolve(cwd, path), `the CA bundle of ${from}`, notes);
    if (data) return { data, from };
  }
  for (const path of systemBundles) {
    const data = readUserFile(path, 'the system CA bundle', null);
    if (data) return { data, from: `the system trust store (${path})` };
  }
  return null;
}

/**
 * The proxy variables as the user set them (either case), or pip's own `proxy` for every scheme
 * (pip then ignores the variables; piper's own scripts get it as the variables).
 */
function proxySettings(user: UserPipConfig, env: NodeJS.ProcessEnv) {
  const result = { env: [] as string[], urls: [] as string[], from: [] as string[] };
  for (const upper of PROXY_VARIABLES)
    for (const name of [upper, upper.toLowerCase()]) {
      const value = env[name]?.trim();
      if (!value) continue;
      result.env.push(`${name}=${value}`);
      if (upper !== 'NO_PROXY') {
        result.urls.push(withScheme(value));
        result.from.push(name);
      }
    }
  if (user.proxy) {
    const overridden = new Set(['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']);
    result.env = result.env.filter((e) => !overridden.has(e.slice(0, e.indexOf('='))));
    result.env.push(...[...overridden].map((name) => `${name}=${user.proxy}`), `PIP_PROXY=${user.proxy}`);
    result.urls.push(withScheme(user.proxy));
    result.from = [user.origin.proxy ?? 'proxy'];
  }
  return result;
}

/** pip accepts `user:password@host:port` without a scheme; its credentials are found with one. */
function withScheme(value: string): string {
  return value.includes('://') ? value : `http://${value}`;
}

/** The netrc pip reads (NETRC, else ~/.netrc, else ~/_netrc), and its passwords. */
function netrcFile(
  env: NodeJS.ProcessEnv,
  notes: string[],
): { data: Buffer; from: string; secrets: string[] } | null {
  const home = env.HOME || homedir();
  const candidates: Array<[string, string]> = env.NETRC?.trim()
    ? [[env.NETRC.trim(), 'NETRC']]
    : [
        [join(home, '.netrc'), '~/.netrc'],
        [join(home, '_netrc'), '~/_netrc'],
      ];
  for (const [path, from] of candidates) {
    const data = readUserFile(path, `the netrc of ${from}`, from === 'NETRC' ? notes : null);
    if (data) return { data, from, secrets: netrcSecrets(data.toString('utf8')) };
  }
  return null;
}

/** pip's `no-index`, read as pip reads a yes or a no; anything else is said and taken as no. */
function noIndexSetting(user: UserPipConfig, notes: string[]): boolean {
  if (user.noIndex === null) return false;
  const on = pipBoolean(user.noIndex);
  if (on === null)
    notes.push(
      `${user.origin.noIndex ?? 'no-index'} = ${user.noIndex} is not a yes or a no (pip would refuse it); ignored`,
    );
  return on === true;
}

/** pip's strtobool: true, false, or null for anything else. */
function pipBoolean(value: string): boolean | null {
  const v = value.trim().toLowerCase();
  if (['y', 'yes', 't', 'true', 'on', '1'].includes(v)) return true;
  if (['n', 'no', 'f', 'false', 'off', '0'].includes(v)) return false;
  return null;
}

/**
 * pip's `constraint` entries: a URL is passed as it is (pip fetches it with the same connection);
 * a file is copied in, without the lines that name another file (`-c`, `-r`: the box has only
 * this one), which are said. Returns what PIP_CONSTRAINT lists in the box.
 */
function constraintFiles(out: PipNetwork, user: UserPipConfig, cwd: string): string[] {
  const from = user.origin.constraints ?? 'constraint';
  const listed: string[] = [];
  for (const entry of user.constraints) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) && !entry.startsWith('file://')) {
      listed.push(entry);
      out.urls.push(entry);
      out.constraints.push(redactUrl(entry));
      continue;
    }
    const path = resolve(cwd, entry.replace(/^file:\/\//, ''));
    const data = readUserFile(path, `the constraints file ${path} (${from})`, out.notes);
    if (!data) continue;
    const lines = data.toString('utf8').split(/\r?\n/);
    const includes = /^\s*(-c|-r|--constraint|--requirement)(\s|=|$)/;
    const dropped = lines.filter((l) => includes.test(l));
    if (dropped.length)
      out.notes.push(
        `the constraints file ${path} (${from}) names other files (${dropped.map((l) => l.trim()).join('; ')}); only its own lines are used`,
      );
    const kept = Buffer.from(lines.filter((l) => !includes.test(l)).join('\n'));
    listed.push(addFile(out, `constraints-${out.constraints.length + 1}.txt`, kept, 0o644));
    out.constraints.push(createHash('sha256').update(kept).digest('hex'));
  }
  return listed;
}

/** A file of the user's, followed through links, bounded; null (and a note when asked) when it cannot be read. */
function readUserFile(path: string, what: string, notes: string[] | null): Buffer | null {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    notes?.push(`${what}, ${path}, is not there; not used`);
    return null;
  }
  const read = readRegularFile(real, { limit: FILE_LIMIT, name: path, what: 'a file of your pip settings' });
  if (Buffer.isBuffer(read)) return read;
  notes?.push(`${what} was not read (${read.error}); not used`);
  return null;
}

/** The secrets of a network's URLs (the proxies' passwords), with its other secrets. */
export function networkSecrets(network: PipNetwork): string[] {
  return [...network.urls.flatMap(secretsOf), ...network.secrets];
}

/**
 * The proxies' and the netrc's secrets alone, for the output guard at a command's start (no CA
 * bundle or certificate is read for it).
 */
export function userNetworkSecrets(user: UserPipConfig, env: NodeJS.ProcessEnv): string[] {
  return [...proxySettings(user, env).urls.flatMap(secretsOf), ...(netrcFile(env, [])?.secrets ?? [])];
}
