// A company's index, as an engineer behind one has it: TLS from a CA of the company's own (in no
// Debian trust store), a client certificate the index asks for, basic auth from a netrc, and the
// only way out a CONNECT proxy that wants its own login — all served by this test on 127.0.0.1
// (the build box reaches them over the host's network: the engine here has no bridge). The wheel
// is installed from that index, the proxy carried the connection, and no password, key or file of
// the connection reaches the image (its config, labels, history, files), the ledger or the output.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DockerEngine } from '../../runtime/engine/docker-engine.js';
import { ENV_LABEL, projectId } from '../../runtime/env/floor/names.js';
import { INDEX_FILES_DIR } from '../../runtime/env/plan/network/pip-network.js';
import { defaultLedgerPath } from '../../runtime/ledger/location.js';
import { runCli } from '../helpers/cli.js';
import { envRows, envScratch } from '../helpers/env-repos.js';
import { buildSdist, buildWheel, serveSimpleIndex } from '../helpers/wheels.js';

const engine = new DockerEngine();
const repos = envScratch('piper-env-company-');
afterAll(() => repos.cleanup(engine));

const INDEX_PASSWORD = 'Idx-pw-7c1e9b';
const PROXY_PASSWORD = 'Prx-pw-52d0aa';

/** A throwaway CA, a server certificate for 127.0.0.1 and a client certificate, both signed by it. */
function certificates(dir: string) {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=piper test company CA',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  const leaf = (name: string, subject: string, ext: string) => {
    writeFileSync(
      join(dir, `${name}.ext`),
      `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n${ext}\n`,
    );
    run(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      subject,
    );
    run(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    );
  };
  leaf('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
  leaf('client', '/CN=piper test client', 'extendedKeyUsage=clientAuth');
  // pip's client-cert: one PEM with the certificate and its private key.
  const clientKey = readFileSync(join(dir, 'client.key'), 'utf8');
  writeFileSync(join(dir, 'client-bundle.pem'), readFileSync(join(dir, 'client.pem'), 'utf8') + clientKey);
  return {
    ca: join(dir, 'ca.pem'),
    clientBundle: join(dir, 'client-bundle.pem'),
    // A line from the middle of the private key: it must appear nowhere.
    keyLine: clientKey.split('\n')[5]!,
    server: { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) },
    caPem: readFileSync(join(dir, 'ca.pem')),
  };
}

/** A PEP 503 index over TLS that wants the client certificate and basic auth on every request. */
async function companyIndex(certs: ReturnType<typeof certificates>, files: string[]) {
  const expected = `Basic ${Buffer.from(`ci:${INDEX_PASSWORD}`).toString('base64')}`;
  const requests: Array<{ path: string; authorized: boolean }> = [];
  const projectOf = (file: string) => basename(file).split('-')[0]!;
  const server = createHttpsServer(
    { ...certs.server, ca: certs.caPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const path = req.url ?? '/';
      const authorized = req.headers.authorization === expected;
      requests.push({ path, authorized });
      const project = /^\/simple\/([^/]+)\/?$/.exec(path)?.[1];
      const listed = files.filter((f) => projectOf(f) === project);
      const file = files.find((f) => path === `/files/${basename(f)}`);
      if (!authorized) res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="company"' }).end();
      else if (listed.length)
        res
          .writeHead(200, { 'Content-Type': 'text/html' })
          .end(
            `<html><body>${listed.map((f) => `<a href="/files/${basename(f)}">${basename(f)}</a>`).join('')}</body></html>`,
          );
      else if (file)
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(readFileSync(file));
      else res.writeHead(404).end();
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A CONNECT proxy that wants its own login and records every tunnel it was asked for. */
async function connectProxy() {
  const expected = `Basic ${Buffer.from(`me:${PROXY_PASSWORD}`).toString('base64')}`;
  const tunnels: Array<{ target: string; authorized: boolean }> = [];
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client, head) => {
    const target = req.url ?? '';
    const authorized = req.headers['proxy-authorization'] === expected;
    tunnels.push({ target, authorized });
    // Only this test's own index, and only with the login.
    if (!authorized || !target.startsWith('127.0.0.1:')) {
      client.end(`HTTP/1.1 ${authorized ? 403 : 407} No\r\nProxy-Authenticate: Basic realm="proxy"\r\n\r\n`);
      return;
    }
    const [host, port] = target.split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Everything the engine keeps of the project's images: each one's inspect and its history. */
function imageRecords(repo: string): string {
  const ids = execFileSync(
    'docker',
    ['images', '-q', '--no-trunc', '--filter', `label=${ENV_LABEL.project}=${projectId(repo)}`],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean);
  expect(ids.length).toBeGreaterThan(0);
  return ids
    .map(
      (id) =>
        execFileSync('docker', ['image', 'inspect', id], { encoding: 'utf8' }) +
        execFileSync('docker', ['history', '--no-trunc', id], { encoding: 'utf8' }),
    )
    .join('\n');
}

describe('a company index: its own CA, a client certificate, a netrc login, behind a CONNECT proxy', () => {
  it('installs from it through the proxy; no secret and no connection file reaches the image, the ledger or the output', async () => {
    const dir = join(repos.scratch, 'company');
    mkdirSync(dir, { recursive: true });
    const certs = certificates(dir);
    const wheel = buildWheel(dir, 'companylib', '3.1.4', {
      'companylib.py': 'ORIGIN = "the company index"\n',
    });
    // Only an sdist: piper's own fetcher takes it from the index (through the proxy, with the client
    // certificate and the netrc's login), and it is built offline.
    const sdist = buildSdist(dir, 'companysrc', '1.0', {
      'setup.py':
        'from setuptools import setup\nsetup(name="companysrc", version="1.0", py_modules=["companysrc"])\n',
      'companysrc.py': 'BUILT = "offline"\n',
    });
    const index = await companyIndex(certs, [wheel, sdist]);
    const proxy = await connectProxy();
    const netrc = join(dir, 'netrc');
    writeFileSync(netrc, `machine 127.0.0.1 login ci password ${INDEX_PASSWORD}\n`);
    const repo = repos.newRepo('company', {
      'requirements.txt': 'companylib==3.1.4\ncompanysrc==1.0\n',
      'tests/test_it.py': 'import companylib\n\ndef test_origin():\n    assert companylib.ORIGIN\n',
    });
    try {
      const r = await runCli(['env', 'build', '--repo', repo], {
        env: {
          CI: 'true',
          PIP_CONFIG_FILE: '/dev/null',
          PIP_INDEX_URL: `https://127.0.0.1:${index.port}/simple/`,
          PIP_EXTRA_INDEX_URL: '',
          PIP_FIND_LINKS: '',
          PIP_RETRIES: '0',
          PIP_CERT: certs.ca,
          PIP_CLIENT_CERT: certs.clientBundle,
          NETRC: netrc,
          HTTPS_PROXY: `http://me:${PROXY_PASSWORD}@127.0.0.1:${proxy.port}`,
          // This machine's own trust settings and proxies are not the test's.
          SSL_CERT_FILE: '',
          REQUESTS_CA_BUNDLE: '',
          CURL_CA_BUNDLE: '',
          HTTP_PROXY: '',
          NO_PROXY: '',
          http_proxy: '',
          https_proxy: '',
          no_proxy: '',
        },
      });
      const output = `${r.stdout}${r.stderr}`;
      expect(r.code, output.slice(-3000)).toBe(0);
      // Installed from the index (not Debian's, not a fallback), at the version asked for.
      expect(output).toMatch(/companylib 3\.1\.4 \(pip\)/);
      expect(output).toMatch(/companysrc 1\.0 \(pip\)/);
      expect(output).not.toMatch(/fallback/);
      expect(output).toContain(
        "pip's connection: the CA bundle of PIP_CERT; the client certificate of PIP_CLIENT_CERT; the proxy of HTTPS_PROXY; the logins of NETRC",
      );
      // Through the proxy, with its login, to the index, with the netrc's login.
      expect(proxy.tunnels).toContainEqual({ target: `127.0.0.1:${index.port}`, authorized: true });
      expect(index.requests).toContainEqual({ path: `/files/${basename(wheel)}`, authorized: true });
      expect(index.requests).toContainEqual({ path: `/files/${basename(sdist)}`, authorized: true });

      const [row] = envRows(repo).filter((x) => x.status === 'built');
      expect(row).toBeDefined();
      expect(row!.sources).toContain("pip's connection: the CA bundle of PIP_CERT");
      const steps = JSON.parse(row!.steps) as Array<{ name: string; network: string; exit_code: number }>;
      expect(steps.find((s) => s.name === 'index probe')).toMatchObject({ exit_code: 0 });
      expect(steps.find((s) => s.name === 'index files out')).toMatchObject({ exit_code: 0 });

      // The image holds the wheel and none of the connection's files.
      const run = execFileSync(
        'docker',
        [
          'run',
          '--rm',
          '--network',
          'none',
          '--entrypoint',
          'sh',
          row!.image,
          '-c',
          `test ! -e ${INDEX_FILES_DIR} && /opt/piper/venv/bin/python -c 'import companylib, companysrc; print(companylib.ORIGIN, companysrc.BUILT)'`,
        ],
        { encoding: 'utf8' },
      );
      expect(run.trim()).toBe('the company index offline');

      const ledger = defaultLedgerPath(repo);
      const ledgerBytes = [ledger, `${ledger}-wal`]
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f).toString('latin1'))
        .join('');
      expect(ledgerBytes.length).toBeGreaterThan(0);
      const places = { output, ledger: ledgerBytes, images: imageRecords(repo) };
      for (const [where, text] of Object.entries(places))
        for (const secret of [INDEX_PASSWORD, PROXY_PASSWORD, certs.keyLine])
          expect(text.includes(secret), `${where} holds a secret`).toBe(false);
      // The proxy is named, redacted; the in-box path of the CA is what the step shows.
      expect(row!.steps).toContain(`HTTPS_PROXY=http://***@127.0.0.1:${proxy.port}`);
    } finally {
      await Promise.all([index.close(), proxy.close()]);
    }
  });
});

describe("the user's no-index and constraints", () => {
  // Versions 1.0 and 2.0 on the index, 1.5 in a find-links directory of the user's.
  const setup = async () => {
    const dir = join(repos.scratch, 'pins');
    mkdirSync(join(dir, 'links'), { recursive: true });
    const wheels = ['1.0', '2.0'].map((v) => buildWheel(dir, 'pinlib', v, { 'pinlib.py': `V = "${v}"\n` }));
    buildWheel(join(dir, 'links'), 'pinlib', '1.5', { 'pinlib.py': 'V = "1.5"\n' });
    const index = await serveSimpleIndex(wheels);
    return { dir, index };
  };
  const env = (url: string, more: NodeJS.ProcessEnv) => ({
    CI: 'true',
    PIP_CONFIG_FILE: '/dev/null',
    PIP_INDEX_URL: url,
    PIP_EXTRA_INDEX_URL: '',
    PIP_FIND_LINKS: '',
    PIP_RETRIES: '0',
    ...more,
  });

  it('a constraints file narrows what pip downloads; no-index asks no index, only find-links', async () => {
    const { dir, index } = await setup();
    try {
      const constraints = join(dir, 'constraints.txt');
      writeFileSync(constraints, 'pinlib<2\n');
      const constrained = repos.newRepo('constrained', { 'requirements.txt': 'pinlib\n' });
      const c = await runCli(['env', 'build', '--repo', constrained], {
        env: env(index.url, { PIP_CONSTRAINT: constraints }),
      });
      expect(c.code, c.stderr.slice(-3000)).toBe(0);
      expect(`${c.stdout}${c.stderr}`).toMatch(/pinlib 1\.0 \(pip\)/);
      expect(c.stdout).toContain('1 constraints file(s) of PIP_CONSTRAINT');

      const asked = index.requests.length;
      const offline = repos.newRepo('no-index', { 'requirements.txt': 'pinlib\n' });
      const n = await runCli(['env', 'build', '--repo', offline], {
        env: env(index.url, { PIP_NO_INDEX: '1', PIP_FIND_LINKS: join(dir, 'links') }),
      });
      expect(n.code, n.stderr.slice(-3000)).toBe(0);
      expect(`${n.stdout}${n.stderr}`).toMatch(/pinlib 1\.5 \(pip\)/);
      expect(index.requests.length).toBe(asked);
      const [row] = envRows(offline).filter((x) => x.status === 'built');
      expect((JSON.parse(row!.steps) as Array<{ name: string }>).map((s) => s.name)).not.toContain(
        'index probe',
      );
    } finally {
      await index.close();
    }
  });
});
