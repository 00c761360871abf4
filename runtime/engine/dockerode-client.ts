// dockerode, loaded without the parts a local engine never needs before it is used: BuildKit
// sessions (dockerode's ./session pulls in gRPC and protobuf; used only by builds with
// `version: '2'`, which piper never asks for), SSH engines (docker-modem's ./ssh pulls in ssh2;
// DOCKER_HOST=ssh:// only), TLS engines (docker-modem's http.js loads Node's https and tls at once;
// DOCKER_TLS_VERIFY only), stdin streams (./http_duplex, on the old readable-stream; attaching with
// stdin) and build contexts from a directory (dockerode's util.js loads tar-fs; piper sends its own
// tar streams). Together they were ~70% of dockerode's import time, paid before a headless run's
// first event. For the duration of this one require each is replaced by a stand-in that loads the
// real module on first use, so all still work: a function for a module that is a function (it
// forwards calls; `new HttpDuplex(…)` works through it because HttpDuplex, called as a plain function,
// returns its own `new`), a proxy for a module that is an object (its properties read through). Node's Module._load is internal but
// stable, and it is the hook that sees a CommonJS module's own requires; it is restored at once.
import Module, { createRequire } from 'node:module';

type Dockerode = typeof import('dockerode');
type Load = (request: string, parent: { filename?: string | null } | undefined, isMain: boolean) => unknown;
type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** The requests deferred, the file that makes each (so nothing else's `./ssh` is touched), and what the module is. */
const DEFERRED: ReadonlyArray<{ request: string; from: string; kind: 'function' | 'object' }> = [
  { request: './session', from: '/node_modules/dockerode/lib/docker.js', kind: 'function' },
  { request: 'tar-fs', from: '/node_modules/dockerode/lib/util.js', kind: 'object' },
  { request: './ssh', from: '/node_modules/docker-modem/lib/modem.js', kind: 'function' },
  { request: './http_duplex', from: '/node_modules/docker-modem/lib/modem.js', kind: 'function' },
  { request: 'https', from: '/node_modules/docker-modem/lib/http.js', kind: 'object' },
];

let loaded: Dockerode | undefined;

export function dockerode(): Dockerode {
  loaded ??= requireDeferring();
  return loaded;
}

function requireDeferring(): Dockerode {
  const loader = Module as unknown as { _load: Load };
  const original = loader._load;
  loader._load = function (this: unknown, request, parent, isMain) {
    const parentFile = parent?.filename;
    const deferred = parentFile && DEFERRED.find((d) => d.request === request && parentFile.endsWith(d.from));
    if (!deferred) return original.call(this, request, parent, isMain);
    let real: unknown;
    const load = () => (real ??= createRequire(parentFile)(request));
    if (deferred.kind === 'object') {
      return new Proxy({}, { get: (_target, key) => (load() as Record<string | symbol, unknown>)[key] });
    }
    return function loadOnFirstCall(this: unknown, ...args: unknown[]): unknown {
      return (load() as AnyFunction).apply(this, args);
    };
  };
  try {
    return createRequire(import.meta.url)('dockerode') as Dockerode;
  } finally {
    loader._load = original;
  }
}
