// What an engine says of itself — GET /version, and Docker's /info or Podman's /libpod/info for its
// identity — asked once per endpoint in this process: it does not change while the engine runs, and
// every DockerEngine object of a run (the lint gate's too) needs it, while Podman takes seconds to
// answer /version (it runs conmon and the OCI runtime to report their versions). A failed answer
// is forgotten, so the next call asks again.
import type Docker from 'dockerode';
import {
  dockerIdentity,
  kindOf,
  podmanIdentity,
  type DockerInfoBody,
  type EngineIdentity,
  type LibpodInfoBody,
  type VersionBody,
} from './engine-identity.js';
import { engineEndpoint, engineFailure } from './engine-failure.js';

const versions = new Map<string, Promise<VersionBody>>();
const identities = new Map<string, Promise<EngineIdentity>>();

export function askVersion(docker: Docker): Promise<VersionBody> {
  return once(versions, endpointKey(docker), () =>
    asked('version', () => docker.version() as Promise<VersionBody>),
  );
}

export function askIdentity(docker: Docker): Promise<EngineIdentity> {
  return once(identities, endpointKey(docker), () => readIdentity(docker));
}

async function readIdentity(docker: Docker): Promise<EngineIdentity> {
  const version = await askVersion(docker);
  if (kindOf(version) === 'podman') {
    // Podman's own API; any version at or above its minimum (4.0.0) is served.
    const info = await asked(
      'podman info',
      () =>
        new Promise<LibpodInfoBody>((resolve, reject) =>
          docker.modem.dial(
            {
              path: '/v4.0.0/libpod/info',
              method: 'GET',
              statusCodes: { 200: true, 404: 'no such endpoint', 500: 'server error' },
              options: {},
            },
            (error, body) => (error ? reject(error) : resolve(body as LibpodInfoBody)),
          ),
        ),
    );
    return podmanIdentity(version, info, engineEndpoint());
  }
  const info = (await asked('info', () => docker.info())) as DockerInfoBody;
  return dockerIdentity(version, info, engineEndpoint());
}

/** Which engine a client speaks to: its socket, or its URL. */
function endpointKey(docker: Docker): string {
  const modem = docker.modem as { socketPath?: unknown; protocol?: string; host?: string; port?: unknown };
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`;
  if (modem.host) return `${modem.protocol ?? 'http'}://${modem.host}:${String(modem.port ?? '')}`;
  return 'default-socket';
}

function once<T>(cache: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> {
  let answer = cache.get(key);
  if (!answer) {
    answer = ask();
    cache.set(key, answer);
    answer.catch(() => cache.delete(key));
  }
  return answer;
}

async function asked<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw engineFailure(what, error);
  }
}
