// Image names as engines report them. Docker keeps a local image's short name (`name:tag`);
// Podman qualifies it with a registry: `docker.io/library/name:tag` through its Docker-compatible
// API in 4.x, `localhost/name:tag` in 5.x. piper names its images with short names, so tags are
// compared short, and a short name that the engine does not know is looked up once more under
// `localhost/` (where Podman 5 files locally built and imported images).

const IMPLIED_PREFIXES = ['docker.io/library/', 'localhost/'];

/** A tag as piper writes it: the registry prefix an engine adds to a local name is dropped. */
export function shortTag(tag: string): string {
  for (const prefix of IMPLIED_PREFIXES) {
    if (tag.startsWith(prefix)) return tag.slice(prefix.length);
  }
  return tag;
}

/** The names to try, in order, for an image reference: itself, then Podman's local name for it. */
export function localCandidates(ref: string): string[] {
  if (ref.startsWith('sha256:') || isQualified(ref)) return [ref];
  return [ref, `localhost/${ref}`];
}

/** Whether a reference names its registry (`host.domain/…`, `host:port/…`, `localhost/…`). */
function isQualified(ref: string): boolean {
  const slash = ref.indexOf('/');
  if (slash < 0) return false;
  const first = ref.slice(0, slash);
  return first === 'localhost' || first.includes('.') || first.includes(':');
}
