// `fix <issue>`: the issue as text, a path to a .md/.txt file, `-` for stdin, or a GitHub issue URL.
// An issue is text: an empty or binary file is refused, and so is a URL that is not GitHub's.
import { readFileSync, statSync } from 'node:fs';
import {
  fetchIssue,
  GITHUB_API,
  issueWebHosts,
  parseIssueUrl,
  singleUrl,
} from '../../runtime/http/github-issue.js';
import { UsageError } from '../../core/exit-codes.js';

export async function issueText(arg: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (arg === '-') {
    if (process.stdin.isTTY)
      throw new UsageError(
        "'-' reads the issue from standard input, but it is a terminal; pipe the issue in",
      );
    return textOf(readFileSync(0), 'the issue on standard input');
  }
  const url = singleUrl(arg);
  if (url) {
    const hosts = issueWebHosts(env.GITHUB_API_URL);
    if (!hosts.includes(url.hostname.toLowerCase()))
      throw new UsageError(
        `${url.hostname} is not GitHub: issue URLs are fetched from GitHub (or GITHUB_API_URL's host, ${hosts.slice(2).join(', ') || 'not set'}) only; pass the issue's text or a .md/.txt file`,
      );
    const ref = parseIssueUrl(arg);
    if (!ref)
      throw new UsageError(`${arg} is not a GitHub issue URL (https://github.com/OWNER/REPO/issues/N)`);
    return fetchIssue(ref, { apiBase: env.GITHUB_API_URL || GITHUB_API, token: env.GITHUB_TOKEN });
  }
  if (/\.(md|txt)$/i.test(arg)) {
    const stat = statSync(arg, { throwIfNoEntry: false });
    if (!stat) throw new UsageError(`issue file ${arg} does not exist`);
    if (!stat.isFile()) throw new UsageError(`issue file ${arg} is not a regular file`);
    return textOf(readFileSync(arg), `issue file ${arg}`);
  }
  if (!arg.trim()) throw new UsageError('the issue is empty');
  return arg.trim();
}

/** Bytes as issue text: refused when empty, or binary (a NUL byte, or not valid UTF-8). */
function textOf(bytes: Buffer, what: string): string {
  if (bytes.includes(0)) throw new UsageError(`${what} is binary (it holds NUL bytes); an issue is text`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${what} is not valid UTF-8 text; an issue is text`);
  }
  if (!text.trim()) throw new UsageError(`${what} is empty`);
  return text.trim();
}
