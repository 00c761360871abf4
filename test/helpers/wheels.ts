// Test fixtures for the environment builder's pip path: pure-Python wheels built here (a wheel is a
// zip with a dist-info; python3's zipfile writes it, RECORD hashes included), and a PEP 503 simple
// index on 127.0.0.1 that serves them, optionally behind HTTP basic auth.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';

const MAKE_WHEEL = `
import base64, hashlib, json, sys, zipfile
spec = json.load(sys.stdin)
name, version = spec["name"], spec["version"]
dist = f"{name}-{version}.dist-info"
files = dict(spec["files"])
files[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n" + "".join(f"Requires-Dist: {r}\\n" for r in spec.get("requires", []))
files[f"{dist}/WHEEL"] = "Wheel-Version: 1.0\\nGenerator: piper-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
record = []
for path, text in files.items():
    data = text.encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{path},sha256={digest},{len(data)}")
record.append(f"{dist}/RECORD,,")
files[f"{dist}/RECORD"] = "\\n".join(record) + "\\n"
out = f"{spec['dir']}/{name}-{version}-py3-none-any.whl"
with zipfile.ZipFile(out, "w") as z:
    for path, text in files.items():
        z.writestr(path, text)
print(out)
`;

/**
 * Builds `<dir>/<name>-<version>-py3-none-any.whl` holding `files` (path → text; a top-level
 * `x.pth` is a .pth file, code at every Python start); `requires`: its Requires-Dist lines.
 */
export function buildWheel(
  dir: string,
  name: string,
  version: string,
  files: Record<string, string>,
  requires: string[] = [],
): string {
  return execFileSync('python3', ['-c', MAKE_WHEEL], {
    input: JSON.stringify({ dir, name, version, files, requires }),
    encoding: 'utf8',
  }).trim();
}

export interface SimpleIndex {
  url: string;
  /** Every request path, with whether it carried the expected credentials. */
  requests: Array<{ path: string; authorized: boolean }>;
  close(): Promise<void>;
}

/**
 * A PEP 503 index of `wheels` on 127.0.0.1; with `auth` every request must carry it. `port`: that
 * one (an index that answers where one did not before), else any free one.
 */
export async function serveSimpleIndex(
  wheels: string[],
  auth?: { user: string; password: string },
  port = 0,
): Promise<SimpleIndex> {
  const requests: SimpleIndex['requests'] = [];
  const expected = auth ? `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}` : null;
  const byProject = new Map<string, string[]>();
  for (const w of wheels) {
    const project = basename(w)
      .split('-')[0]!
      .toLowerCase()
      .replace(/[-_.]+/g, '-');
    byProject.set(project, [...(byProject.get(project) ?? []), w]);
  }
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const authorized = expected === null || req.headers.authorization === expected;
    requests.push({ path, authorized });
    if (!authorized) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const simple = /^\/simple\/([^/]+)\/?$/.exec(path);
    if (path === '/simple/' || path === '/simple') {
      const links = [...byProject.keys()].map((p) => `<a href="/simple/${p}/">${p}</a>`).join('\n');
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(`<!DOCTYPE html><html><body>${links}</body></html>`);
    } else if (simple) {
      const files = byProject.get(simple[1]!.toLowerCase()) ?? [];
      if (!files.length) {
        res.writeHead(404).end();
        return;
      }
      const links = files.map((f) => `<a href="/files/${basename(f)}">${basename(f)}</a>`).join('\n');
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(`<!DOCTYPE html><html><body>${links}</body></html>`);
    } else if (path.startsWith('/files/')) {
      const file = wheels.find((w) => basename(w) === path.slice('/files/'.length));
      if (!file) res.writeHead(404).end();
      else res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(readFileSync(file));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const listening = (server.address() as AddressInfo).port;
  const cred = auth ? `${auth.user}:${auth.password}@` : '';
  return {
    url: `http://${cred}127.0.0.1:${listening}/simple/`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const MAKE_SDIST = `
import io, json, sys, tarfile
spec = json.load(sys.stdin)
root = f"{spec['name']}-{spec['version']}"
files = dict(spec["files"])
files["PKG-INFO"] = f"Metadata-Version: 2.1\\nName: {spec['name']}\\nVersion: {spec['version']}\\n"
out = f"{spec['dir']}/{root}.tar.gz"
with tarfile.open(out, "w:gz") as t:
    for path, text in files.items():
        data = text.encode()
        info = tarfile.TarInfo(f"{root}/{path}")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
print(out)
`;

/** Builds `<dir>/<name>-<version>.tar.gz`, a source distribution holding `files` (a `setup.py` among them). */
export function buildSdist(
  dir: string,
  name: string,
  version: string,
  files: Record<string, string>,
): string {
  return execFileSync('python3', ['-c', MAKE_SDIST], {
    input: JSON.stringify({ dir, name, version, files }),
    encoding: 'utf8',
  }).trim();
}
