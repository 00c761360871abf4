// Whether this machine's package index answers, asked once per test file: the index pip is
// configured with here (pip.conf, PIP_INDEX_URL, the user's uv settings), else pip's own default,
// which pip itself names (no host name is written in the tests). One GET of the simple page of a
// tiny project with a short timeout, from the host's Python, so the machine's proxy variables and
// CA bundle (PIP_CERT, else SSL_CERT_FILE and the system's) are honoured as pip would honour them.
// Tests that need the real index run where it answers and are skipped, with the reason, where not.
import { execFileSync } from 'node:child_process';
import { readUserIndexes } from '../../runtime/env/plan/indexes/user-indexes.js';

export interface RealIndex {
  reachable: boolean;
  /** Why not, for the skip's message; the URL's login masked. */
  reason: string;
}

const PROBE = `
import base64, os, ssl, sys, urllib.parse, urllib.request
url = sys.argv[1] or __import__("pip._internal.models.index", fromlist=["PyPI"]).PyPI.simple_url
parts = urllib.parse.urlsplit(url)
bare = urllib.parse.urlunsplit(parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else "")))
request = urllib.request.Request(bare.rstrip("/") + "/iniconfig/", method="GET")
if parts.username:
    login = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    request.add_header("Authorization", "Basic " + base64.b64encode(login.encode()).decode())
cafile = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE") or None
context = ssl.create_default_context(cafile=cafile)
try:
    with urllib.request.urlopen(request, timeout=float(sys.argv[2]), context=context) as r:
        print("answered", r.status)
except urllib.error.HTTPError as e:
    print("refused", e.code, bare)
except Exception as e:
    print("unreachable", type(e).__name__, str(e)[:160], bare)
`;

export function realIndex(timeoutS = 8): RealIndex {
  const { user } = readUserIndexes(process.env);
  try {
    const out = execFileSync('python3', ['-c', PROBE, user.indexUrl ?? '', String(timeoutS)], {
      encoding: 'utf8',
      timeout: (timeoutS + 10) * 1000,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    if (out.startsWith('answered')) return { reachable: true, reason: '' };
    return { reachable: false, reason: `the package index does not answer: ${out}` };
  } catch (error) {
    return { reachable: false, reason: `the index could not be asked: ${String(error).split('\n')[0]}` };
  }
}
