// dockerode, loaded without the two parts piper rarely needs: BuildKit sessions (dockerode's
// ./session pulls in gRPC and protobuf; used only by builds with `version: '2'`, which piper never
// asks for) and SSH engines (docker-modem's ./ssh pulls in ssh2; used only for DOCKER_HOST=ssh://).
// Together they are ~40% of dockerode's import time, paid before a headless run's first event.
// Each is replaced, for the duration of this one require, by a function that loads the real
// module on its first call, so both still work when used. Node's Module._load is internal but
// stable, and it is the hook that sees a CommonJS module's own requires; it is restored at once.
import Module, { createRequire } from 'node:module';

type Dockerode = typeof import('dockerode');
type Load = (request: string, parent: { filename?: string | null } | undefined, isMain: boolean) => unknown;
type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** The requests deferred, and the file that makes each (so nothing else's `./ssh` is touched). */
const DEFERRED: ReadonlyArray<{ request: string; from: string }> = [
  { request: './session', from: '/node_modules/dockerode/lib/docker.js' },
  { request: './ssh', from: '/node_modules/docker-modem/lib/modem.js' },
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
    const deferred = parentFile && DEFERRED.some((d) => d.request === request && parentFile.endsWith(d.from));
    if (!deferred) return original.call(this, request, parent, isMain);
    let real: AnyFunction | undefined;
    return function loadOnFirstCall(this: unknown, ...args: unknown[]): unknown {
      real ??= createRequire(parentFile)(request) as AnyFunction;
      return real.apply(this, args);
    };
  };
  try {
    return createRequire(import.meta.url)('dockerode') as Dockerode;
  } finally {
    loader._load = original;
  }
}
