// One redaction for every output: the credentials the ledger's redactor masks (runtime/env/plan/secrets.ts)
// are masked on stdout and stderr too, whatever path a line takes there — a progress line, an error,
// a stream-json event, the unreachable index's message. Every credential-bearing setting registers
// its secret here when it is read (the API key, PIP_INDEX_URL and the other pip sources, a trusted
// recipe's URLs), and the two streams' write() masks each one in every string written after that.
// Only known secrets are masked here, exactly: a URL's userinfo in general is left to the places that
// show URLs, so a `git@host` in a program's output is kept. `execute --raw` writes bytes (a Buffer),
// which stay as they are.

const MASK = '***';
// A shorter value would mask common words of every other line.
const MIN_SECRET = 4;
const secrets = new Set<string>();
let ordered: string[] = [];

/** Adds secrets (raw values: a password, a token, an API key) masked in every later output. */
export function guardSecrets(values: Iterable<string | undefined | null>): void {
  let added = false;
  for (const value of values) {
    if (!value || value.length < MIN_SECRET || secrets.has(value)) continue;
    secrets.add(value);
    // JSON output writes the same secret with its quotes and backslashes escaped.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) secrets.add(escaped);
    added = true;
  }
  // Longest first: a secret that contains another is masked whole.
  if (added) ordered = [...secrets].sort((a, b) => b.length - a.length);
}

/** The text with every registered secret masked. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(MASK);
  return out;
}

type Write = NodeJS.WriteStream['write'];
const installed = new WeakSet<NodeJS.WriteStream>();

/** Makes `stream.write` mask the registered secrets in every string it is given. */
export function guardStream(stream: NodeJS.WriteStream): void {
  if (installed.has(stream)) return;
  installed.add(stream);
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === 'string' && ordered.length ? maskSecrets(chunk) : chunk, ...rest)) as Write;
}
