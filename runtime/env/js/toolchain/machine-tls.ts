// The undici dispatcher the toolchain's downloads use: the machine's CAs (Node's own, the system
// bundle a company CA is installed into, NODE_EXTRA_CA_CERTS), through the user's proxy when one is
// set, as npm on this machine would reach its registry.
import { SYSTEM_CA_BUNDLES } from '../../floor/ca-bundles.js';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Node's CAs, the system bundle and NODE_EXTRA_CA_CERTS, as PEM texts. */
function machineCas(env: NodeJS.ProcessEnv = process.env): string[] {
  const cas = [...rootCertificates];
  const system = SYSTEM_CA_BUNDLES.map(readOrNull).find((text) => text !== null);
  if (system) cas.push(system);
  const extra = env.NODE_EXTRA_CA_CERTS ? readOrNull(env.NODE_EXTRA_CA_CERTS) : null;
  if (extra) cas.push(extra);
  return cas;
}

/** The proxy npm would use for `url` (https_proxy / http_proxy, either case); NO_PROXY is honoured by name. */
export function proxyFor(url: string, env: NodeJS.ProcessEnv): string | null {
  const host = new URL(url).hostname;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (
    noProxy.some(
      (n) => n === '*' || host === n.replace(/^\./, '') || host.endsWith(n.startsWith('.') ? n : `.${n}`),
    )
  )
    return null;
  const https = url.startsWith('https:');
  return (https ? env.HTTPS_PROXY || env.https_proxy : env.HTTP_PROXY || env.http_proxy) || null;
}

export async function machineDispatcher(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Dispatcher> {
  const { Agent, ProxyAgent } = await import('undici');
  const ca = machineCas(env);
  const proxy = proxyFor(url, env);
  return proxy
    ? new ProxyAgent({ uri: proxy, requestTls: { ca }, proxyTls: { ca } })
    : new Agent({ connect: { ca } });
}
