// The user's registry login and CA in the download box, and only there: a root-only directory
// (an npmrc with the token, NODE_EXTRA_CA_CERTS's file) put in before the install and removed after
// it; the box is marked as holding them, so it cannot be committed until they are gone
// (held-boxes.ts). The install's exec gets the paths and the proxies; nothing of it is in a script.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { padding, TAR_END, tarHeader } from '../../../workspace/tar-header.js';
import type { BuildBox } from '../../build/build-box.js';
import { isHolding, markHolding, markReleased } from '../../build/network/held-boxes.js';
import type { JsManager } from '../plan/js-plan.js';
import type { NpmRegistry } from '../toolchain/npm-registry.js';

const DIR = '/run/piper-npm';
const PROXIES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];

export interface RegistryAccess {
  env: string[];
  /** What the record says of it: no address, no secret. */
  said: string;
}

/** The files put into `box` and the exec variables that name them, the registry's URL and the proxies. */
export async function putRegistryAccess(
  box: BuildBox,
  registry: NpmRegistry,
  manager: JsManager,
  env: NodeJS.ProcessEnv,
): Promise<RegistryAccess> {
  const files: { name: string; data: Buffer }[] = [];
  const out: string[] = [`npm_config_registry=${registry.url}`, `YARN_NPM_REGISTRY_SERVER=${registry.url}`];
  const said: string[] = [`the registry of ${registry.from}`];
  if (registry.token) {
    const scope = registry.url.replace(/^https?:/, '');
    files.push({ name: 'npmrc', data: Buffer.from(`${scope}:_authToken=${registry.token}\n`) });
    out.push(`NPM_CONFIG_USERCONFIG=${DIR}/npmrc`);
    if (manager === 'yarn-berry') out.push(`YARN_NPM_AUTH_TOKEN=${registry.token}`);
    said.push('its token from your npmrc');
  }
  const ca = env.NODE_EXTRA_CA_CERTS ? readOrNull(env.NODE_EXTRA_CA_CERTS) : null;
  if (ca) {
    files.push({ name: 'ca.pem', data: ca });
    out.push(`NODE_EXTRA_CA_CERTS=${DIR}/ca.pem`, `npm_config_cafile=${DIR}/ca.pem`);
    // berry refuses a YARN_ variable it does not know: its own name for the CA file, for it alone.
    if (manager === 'yarn-berry') out.push(`YARN_HTTPS_CA_FILE_PATH=${DIR}/ca.pem`);
    said.push('the CA of NODE_EXTRA_CA_CERTS');
  }
  for (const name of PROXIES) if (env[name]) out.push(`${name}=${env[name]}`);
  if (files.length) {
    markHolding(box);
    await box.put('/run', filesTar(files));
  }
  return { env: out, said: `the download's connection: ${said.join('; ')}` };
}

/** The files removed (after the install): the box may be committed. */
export async function dropRegistryAccess(box: BuildBox): Promise<boolean> {
  if (!isHolding(box)) return true;
  const r = await box.run({ name: 'registry files out', script: `rm -rf ${DIR}`, timeoutS: 60, quiet: true });
  if (r.exit_code !== 0) return false;
  markReleased(box);
  return true;
}

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

function filesTar(files: { name: string; data: Buffer }[]): Readable {
  const dir = DIR.slice(DIR.lastIndexOf('/') + 1);
  const parts: Buffer[] = [tarHeader({ name: dir, type: 'directory', mode: 0o700 })];
  for (const f of files) {
    parts.push(tarHeader({ name: `${dir}/${f.name}`, type: 'file', mode: 0o600, size: f.data.length }));
    parts.push(f.data, Buffer.alloc(padding(f.data.length)));
  }
  parts.push(TAR_END);
  return Readable.from([Buffer.concat(parts)]);
}
