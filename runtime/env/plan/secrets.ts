// The one redaction every environment build record goes through: step commands, output tails,
// progress lines, error messages, sources, the plan. It knows two things: the userinfo part of any
// URL in a text (`https://user:token@host/` → `https://***@host/`), and the exact credential values
// of every credential-bearing setting this build was given (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
// PIP_FIND_LINKS, pip.conf's index-url / extra-index-url / find-links, the recipe's URLs, the
// proxies, the netrc's passwords: plan/network/pip-network.ts). The
// second catches a secret that shows up outside a URL: pip echoing a token, an error that
// percent-decodes it, a backend printing its environment.
import { redactUrl, userinfoOf } from './read/redact.js';

const MASK = '***';

export class Redactor {
  private readonly secrets: string[];

  /**
   * `urls`: every credential-bearing URL of the build (their userinfo parts become the secrets);
   * `others`: secrets that are not in a URL (a netrc's passwords).
   */
  constructor(urls: readonly string[], others: readonly string[] = []) {
    const found = new Set<string>(others);
    for (const url of urls) for (const secret of secretsOf(url)) found.add(secret);
    // Longest first: a password that contains the user name is replaced whole.
    this.secrets = [...found].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
  }

  text(text: string): string {
    let out = redactUrl(text);
    for (const secret of this.secrets) out = out.split(secret).join(MASK);
    return out;
  }

  /** Whether `text` still holds a known secret (tests, and a last check before recording). */
  leaks(text: string): boolean {
    return this.secrets.some((s) => text.includes(s));
  }
}

/**
 * The secret of a URL's userinfo, raw and percent-decoded: the password of `user:password`, or the
 * whole of a token-only `https://TOKEN@host/` (a user name alone is not treated as a secret: it
 * would mask every other occurrence of a common word).
 */
export function secretsOf(url: string): string[] {
  const info = userinfoOf(url);
  if (info === undefined) return [];
  const colon = info.indexOf(':');
  const secret = colon >= 0 ? info.slice(colon + 1) : info;
  let decoded = secret;
  try {
    decoded = decodeURIComponent(secret);
  } catch {
    // Not valid percent-encoding: only the raw form can appear.
  }
  return [...new Set([secret, decoded])].filter(Boolean);
}

/** No credentials known: URL userinfo is still removed. */
export const URL_REDACTOR = new Redactor([]);
