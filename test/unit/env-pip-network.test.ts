// How the networked steps reach a company index (plan/network/, build/network/): the CA
// bundle in pip's order, the client certificate, the proxies, the netrc, no-index and constraints,
// read from the user's variables and pip.conf; their secrets redacted and guarded; only no-index
// and the constraints in the keys.
import { stepCatalog } from '../../runtime/env/build/step-catalog.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTar } from '../../runtime/env/build/tar-files.js';
import { CLIENT_CERT_PRELUDE, indexFilesTar } from '../../runtime/env/build/network/index-files.js';
import { declarationsKey } from '../../runtime/env/choose/key.js';
import { planEnvironment } from '../../runtime/env/plan/detect.js';
import { readUserPipConfig } from '../../runtime/env/plan/pip-config.js';
import { netrcSecrets } from '../../runtime/env/plan/network/netrc.js';
import { INDEX_FILES_DIR, readPipNetwork } from '../../runtime/env/plan/network/pip-network.js';
import { pipSettings, pipSourceEnv } from '../../runtime/env/plan/pip-settings.js';
import { makeBuildSpec } from '../../runtime/env/spec/build-spec.js';
import { maskSecrets } from '../../runtime/text/output-guard.js';

const scratch = mkdtempSync(join(tmpdir(), 'piper-pip-network-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
function file(text: string, name = `f${++files}`): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

/** No pip.conf of this machine, no netrc of its user, no system bundle: only what a test gives. */
function network(env: NodeJS.ProcessEnv, systemBundles: string[] = []) {
  const home = mkdtempSync(join(scratch, 'home-'));
  const full = { HOME: home, XDG_CONFIG_DIRS: join(home, 'none'), PIP_CONFIG_FILE: '/dev/null', ...env };
  return readPipNetwork(readUserPipConfig(full), full, { systemBundles, cwd: scratch });
}

const varOf = (env: string[], name: string) =>
  env.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);

describe('the CA bundle', () => {
  const pipCert = file('PIP_CERT bundle');
  const sslCertFile = file('SSL_CERT_FILE bundle');
  const requestsBundle = file('REQUESTS_CA_BUNDLE bundle');
  const system = file('system bundle');

  it("is found in pip's order: PIP_CERT, pip.conf's cert, SSL_CERT_FILE, REQUESTS_CA_BUNDLE, the system's", () => {
    const all = { PIP_CERT: pipCert, SSL_CERT_FILE: sslCertFile, REQUESTS_CA_BUNDLE: requestsBundle };
    const caOf = (env: NodeJS.ProcessEnv, bundles: string[] = []) =>
      network(env, bundles)
        .files.find((f) => f.name === 'ca.pem')
        ?.data.toString();
    expect(caOf(all, [system])).toBe('PIP_CERT bundle');
    const conf = file(`[global]\ncert = ${pipCert}\n`);
    expect(caOf({ PIP_CONFIG_FILE: conf, SSL_CERT_FILE: sslCertFile })).toBe('PIP_CERT bundle');
    expect(caOf({ SSL_CERT_FILE: sslCertFile, REQUESTS_CA_BUNDLE: requestsBundle })).toBe(
      'SSL_CERT_FILE bundle',
    );
    expect(caOf({ REQUESTS_CA_BUNDLE: requestsBundle }, [system])).toBe('REQUESTS_CA_BUNDLE bundle');
    expect(caOf({}, [join(scratch, 'absent'), system])).toBe('system bundle');
    expect(caOf({})).toBeUndefined();
  });

  it('reaches pip as PIP_CERT and Python as SSL_CERT_FILE, paths in the box; said by where it came from, not its path', () => {
    const n = network({ PIP_CERT: pipCert });
    expect(varOf(n.env, 'PIP_CERT')).toBe(`${INDEX_FILES_DIR}/ca.pem`);
    expect(varOf(n.env, 'SSL_CERT_FILE')).toBe(`${INDEX_FILES_DIR}/ca.pem`);
    expect(n.said).toBe("pip's connection: the CA bundle of PIP_CERT");
    expect(n.said).not.toContain(pipCert);
  });

  it('follows a link to the bundle; a bundle that is not there is said, and the next one is used', () => {
    const link = join(scratch, 'bundle-link');
    symlinkSync(pipCert, link);
    expect(network({ PIP_CERT: link }).files[0]?.data.toString()).toBe('PIP_CERT bundle');
    const n = network({ PIP_CERT: join(scratch, 'nope.pem'), SSL_CERT_FILE: sslCertFile });
    expect(n.files[0]?.data.toString()).toBe('SSL_CERT_FILE bundle');
    expect(n.notes.join('\n')).toContain('the CA bundle of PIP_CERT');
  });
});

describe('where pip speaks no TLS', () => {
  it('puts no CA bundle and no client certificate into the box (an http:// index needs none)', () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const env = {
      HOME: home,
      XDG_CONFIG_DIRS: join(home, 'none'),
      PIP_CONFIG_FILE: '/dev/null',
      PIP_CERT: file('bundle'),
      PIP_CLIENT_CERT: file('client'),
    };
    const net = readPipNetwork(readUserPipConfig(env), env, { systemBundles: [], cwd: scratch, tls: false });
    expect(net.files).toEqual([]);
    expect(net.env.filter((e) => /^(PIP_CERT|SSL_CERT_FILE|PIP_CLIENT_CERT)=/.test(e))).toEqual([]);
  });
});

describe('the client certificate', () => {
  it('comes from PIP_CLIENT_CERT or pip.conf client-cert, readable by root only in the box', () => {
    const pem = file('-----BEGIN PRIVATE KEY-----\nsecret\n');
    const n = network({ PIP_CLIENT_CERT: pem });
    expect(n.files.find((f) => f.name === 'client.pem')).toMatchObject({ mode: 0o600 });
    expect(varOf(n.env, 'PIP_CLIENT_CERT')).toBe(`${INDEX_FILES_DIR}/client.pem`);
    const conf = file(`[global]\nclient-cert = ${pem}\n`);
    const fromConf = network({ PIP_CONFIG_FILE: conf });
    expect(fromConf.said).toContain(`the client certificate of ${conf} [global] client-cert`);
    expect(fromConf.said).not.toContain(pem);
  });

  it("is given to piper's own scripts by a prelude that is Python", () => {
    execFileSync('python3', ['-c', `import ast; ast.parse(${JSON.stringify(CLIENT_CERT_PRELUDE)})`]);
  });
});

describe('the proxies', () => {
  it('are passed as the user set them, either case, NO_PROXY too; their passwords are secrets', () => {
    const n = network({
      HTTPS_PROXY: 'http://me:proxy-pw-1@127.0.0.1:3128',
      http_proxy: 'http://127.0.0.1:3129',
      NO_PROXY: 'localhost,.corp',
    });
    expect(n.env).toEqual(
      expect.arrayContaining([
        'HTTPS_PROXY=http://me:proxy-pw-1@127.0.0.1:3128',
        'http_proxy=http://127.0.0.1:3129',
        'NO_PROXY=localhost,.corp',
      ]),
    );
    expect(n.said).toBe("pip's connection: the proxy of http_proxy, HTTPS_PROXY");
    expect(n.urls).toContain('http://me:proxy-pw-1@127.0.0.1:3128');
  });

  it("pip's own proxy (PIP_PROXY, pip.conf) is every scheme's, for pip and piper's scripts alike", () => {
    const n = network({ PIP_PROXY: 'me:pw-no-scheme@127.0.0.1:8080', HTTPS_PROXY: 'http://127.0.0.1:1' });
    expect(varOf(n.env, 'PIP_PROXY')).toBe('me:pw-no-scheme@127.0.0.1:8080');
    expect(varOf(n.env, 'HTTPS_PROXY')).toBe('me:pw-no-scheme@127.0.0.1:8080');
    expect(varOf(n.env, 'https_proxy')).toBe('me:pw-no-scheme@127.0.0.1:8080');
    expect(n.urls).toContain('http://me:pw-no-scheme@127.0.0.1:8080');
  });
});

describe('the netrc', () => {
  const text = [
    '# a comment with password in it',
    'machine 127.0.0.1 login ci password "quoted pw\\"x"',
    'machine other.example',
    '  login u2',
    '  password plainPw2',
    'macdef init',
    'password not-a-secret',
    '',
    'default login anon account acct-9 password dflt-pw',
  ].join('\n');

  it("passwords and accounts are its secrets, read as Python's netrc reads them", () => {
    expect(netrcSecrets(text).sort()).toEqual(['acct-9', 'dflt-pw', 'plainPw2', 'quoted pw"x'].sort());
  });

  it('comes from NETRC, else ~/.netrc; copied for root alone, its passwords secret', () => {
    const path = file(text);
    const n = network({ NETRC: path });
    expect(n.files.find((f) => f.name === 'netrc')).toMatchObject({ mode: 0o600 });
    expect(varOf(n.env, 'NETRC')).toBe(`${INDEX_FILES_DIR}/netrc`);
    expect(n.secrets).toContain('plainPw2');
    expect(n.said).toContain('the logins of NETRC');
    const home = mkdtempSync(join(scratch, 'home-'));
    writeFileSync(join(home, '.netrc'), 'machine h login l password home-pw\n');
    const fromHome = readPipNetwork(
      readUserPipConfig({ PIP_CONFIG_FILE: '/dev/null' }),
      { HOME: home },
      {
        systemBundles: [],
      },
    );
    expect(fromHome.secrets).toEqual(['home-pw']);
    expect(fromHome.said).toContain('the logins of ~/.netrc');
  });
});

describe('no-index and constraints', () => {
  it('no-index as pip reads a yes or a no; anything else is said and ignored', () => {
    expect(network({ PIP_NO_INDEX: '1' }).noIndex).toBe(true);
    expect(network({ PIP_NO_INDEX: 'yes' }).env).toContain('PIP_NO_INDEX=1');
    expect(network({ PIP_NO_INDEX: 'off' }).noIndex).toBe(false);
    const odd = network({ PIP_NO_INDEX: 'maybe' });
    expect(odd.noIndex).toBe(false);
    expect(odd.notes.join('\n')).toContain('PIP_NO_INDEX = maybe');
    expect(network({ PIP_CONFIG_FILE: file('[global]\nno-index = true\n') }).noIndex).toBe(true);
  });

  it('constraint files are copied (without lines naming other files), URLs passed; their hashes are what the key sees', () => {
    const a = file('attrs==25.1.0\n-c other.txt\n');
    const b = file('six<2\n');
    const n = network({ PIP_CONSTRAINT: `${a} ${b} https://u:cpw@127.0.0.1:1/c.txt` });
    expect(varOf(n.env, 'PIP_CONSTRAINT')).toBe(
      `${INDEX_FILES_DIR}/constraints-1.txt ${INDEX_FILES_DIR}/constraints-2.txt https://u:cpw@127.0.0.1:1/c.txt`,
    );
    expect(n.files.find((f) => f.name === 'constraints-1.txt')?.data.toString()).toBe('attrs==25.1.0\n');
    expect(n.notes.join('\n')).toContain('names other files (-c other.txt)');
    expect(n.constraints).toHaveLength(3);
    expect(n.constraints[2]).toBe('https://***@127.0.0.1:1/c.txt');
    expect(n.said).toContain('3 constraints file(s) of PIP_CONSTRAINT');
  });
});

describe('in the build', () => {
  const repo = () => {
    const dir = mkdtempSync(join(scratch, 'r-'));
    writeFileSync(join(dir, 'requirements.txt'), 'six==1.16.0\n');
    return dir;
  };
  const base = { PIP_CONFIG_FILE: '/dev/null', XDG_CONFIG_DIRS: '/nonexistent' };
  const settingsOf = (dir: string, env: NodeJS.ProcessEnv) =>
    pipSettings(
      planEnvironment(dir),
      { ...base, HOME: mkdtempSync(join(scratch, 'home-')), ...env },
      {
        trustRepoIndex: false,
        repoRoot: dir,
      },
    );
  const keyOf = (dir: string, env: NodeJS.ProcessEnv) => {
    const plan = planEnvironment(dir);
    return declarationsKey(
      makeBuildSpec({
        steps: stepCatalog(),
        repoRoot: dir,
        plan,
        base: { suite: plan.debian, recipe: '1111' },
        pip: settingsOf(dir, env),
        setup: [],
        trustUrls: false,
        strict: false,
      }),
    );
  };

  it("the networked steps' environment has them; the redactor and the output guard mask their secrets", () => {
    const dir = repo();
    const netrc = file('machine 127.0.0.1 login ci password netrc-pw-77\n');
    const p = settingsOf(dir, { NETRC: netrc, HTTPS_PROXY: 'http://me:proxy-pw-88@127.0.0.1:3128' });
    const env = pipSourceEnv(p, []);
    expect(env).toEqual(expect.arrayContaining([`NETRC=${INDEX_FILES_DIR}/netrc`]));
    expect(p.redactor.text('pip said netrc-pw-77 and http://me:proxy-pw-88@127.0.0.1:3128')).toBe(
      'pip said *** and http://***@127.0.0.1:3128',
    );
    expect(maskSecrets('netrc-pw-77 proxy-pw-88')).toBe('*** ***');
  });

  it('no-index: no default index either', () => {
    const dir = repo();
    expect(settingsOf(dir, {}).defaultIndex).toBe(true);
    expect(settingsOf(dir, { PIP_NO_INDEX: '1' }).defaultIndex).toBe(false);
  });

  it('the keys: the same with or without a CA, a client certificate, a proxy, a netrc; not with no-index or constraints', () => {
    const dir = repo();
    const key = keyOf(dir, {});
    const ca = file('a CA');
    const netrc = file('machine h login l password p4ss\n');
    expect(
      keyOf(dir, { PIP_CERT: ca, PIP_CLIENT_CERT: ca, HTTPS_PROXY: 'http://127.0.0.1:1', NETRC: netrc }),
    ).toBe(key);
    expect(keyOf(dir, { PIP_NO_INDEX: '1' })).not.toBe(key);
    const constraints = file('six<2\n');
    const constrained = keyOf(dir, { PIP_CONSTRAINT: constraints });
    expect(constrained).not.toBe(key);
    writeFileSync(constraints, 'six<3\n');
    expect(keyOf(dir, { PIP_CONSTRAINT: constraints })).not.toBe(constrained);
  });

  it('the files go in as one directory for root alone', async () => {
    const entries = await readTar(
      Buffer.concat(
        await indexFilesTar([
          { name: 'ca.pem', data: Buffer.from('ca'), mode: 0o644 },
          { name: 'netrc', data: Buffer.from('n'), mode: 0o600 },
        ]).toArray(),
      ),
    );
    const dir = INDEX_FILES_DIR.split('/').pop();
    expect(entries.map((e) => [e.name, e.type])).toEqual([
      [dir, 'directory'],
      [`${dir}/ca.pem`, 'file'],
      [`${dir}/netrc`, 'file'],
    ]);
  });
});
