// Where Podman's Docker-compatible API takes the same setting in another spelling. Podman 4
// refuses the tmpfs options `uid=`/`gid=` ("unknown mount option"); its own option `U` makes the
// tmpfs belong to the container's user, which is the same thing when the two ids are that user's.
// Anything else is left as it is, for the engine to apply or refuse.

/** Tmpfs options with `uid=N,gid=M` replaced by `U` where N:M is the container's user. */
export function podmanTmpfs(tmpfs: Record<string, string>, user: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, options] of Object.entries(tmpfs)) {
    const parts = options.split(',');
    const uid = parts.find((p) => p.startsWith('uid='))?.slice(4);
    const gid = parts.find((p) => p.startsWith('gid='))?.slice(4);
    out[path] =
      uid !== undefined && `${uid}:${gid ?? uid}` === user
        ? [...parts.filter((p) => !p.startsWith('uid=') && !p.startsWith('gid=')), 'U'].join(',')
        : options;
  }
  return out;
}
