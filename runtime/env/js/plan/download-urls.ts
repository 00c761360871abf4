// Where a repository may point the networked download. The download box may share the host's
// network (an engine with no bridge network) and holds your registry login, so a URL a repository
// names — a lockfile's tarball, an .npmrc's or .yarnrc.yml's registry — never reaches it when it
// names this machine or its private network (it would reach your own services) or carries a login
// (a credential the repository brings is never sent, logged or kept). A host name that only
// resolves to such an address is not caught here: the box's network is the host's own limit.

/** Why `url` may not reach the download, or null. Not a URL: null (nothing to fetch). */
export function refusedUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.username || parsed.password) return 'it carries a login';
  if (localHost(parsed.hostname)) return 'it names this machine or a private network address';
  return null;
}

/** `localhost`, and the loopback, private, link-local and unspecified IPv4 and IPv6 ranges. */
export function localHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host === '') return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host.replace(/^::ffff:/, ''));
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (!host.includes(':')) return false;
  if (host === '::' || host === '::1') return true;
  // The WHATWG parser writes an IPv4-mapped address in hex (`::ffff:7f00:1`).
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const n = parseInt(mapped[1]!, 16);
    const m = parseInt(mapped[2]!, 16);
    return localHost(`${n >> 8}.${n & 255}.${m >> 8}.${m & 255}`);
  }
  return /^f[cd][0-9a-f]{0,2}:/.test(host) || /^fe[89ab][0-9a-f]?:/.test(host);
}

/** Every URL in `text` (a lockfile), found in one linear pass. */
export function urlsIn(text: string): string[] {
  return [...text.matchAll(/\b[a-z][a-z0-9+.-]{0,20}:\/\/[^\s"'`<>{},]+/gi)].map((m) => m[0]);
}
