// Fetching a GitHub issue as the agent's issue text, over the REST API (undici). The API base is
// overridable for GitHub Enterprise (GITHUB_API_URL, or --github-api); GITHUB_TOKEN is sent when set.
import { RuntimeError } from '../errors.js';

export interface IssueRef {
  owner: string;
  repo: string;
  number: number;
}

const ISSUE_URL = /^https?:\/\/[^/]+\/([^/]+)\/([^/]+)\/issues\/(\d+)\/?(?:[?#].*)?$/;

export function parseIssueUrl(text: string): IssueRef | null {
  const m = ISSUE_URL.exec(text.trim());
  return m ? { owner: m[1]!, repo: m[2]!, number: Number(m[3]) } : null;
}

export const GITHUB_API = 'https://api.github.com';

/**
 * The web hosts whose issue URLs piper-agent fetches: GitHub's, and the host of the Enterprise API
 * when GITHUB_API_URL names one. An issue URL is fetched from the API base, never from its own
 * host, so a URL of any other host would quietly fetch some GitHub issue with the user's token.
 */
export function issueWebHosts(apiBase: string | undefined): string[] {
  const hosts = ['github.com', 'www.github.com'];
  if (apiBase) {
    try {
      hosts.push(new URL(apiBase).hostname.toLowerCase());
    } catch {
      // a malformed GITHUB_API_URL adds no host; fetching with it fails and says so
    }
  }
  return hosts;
}

/** The text as a URL when it is one http(s) URL and nothing else, else null. */
export function singleUrl(text: string): URL | null {
  const t = text.trim();
  if (!/^https?:\/\/\S+$/i.test(t)) return null;
  try {
    return new URL(t);
  } catch {
    return null;
  }
}

export async function fetchIssue(
  ref: IssueRef,
  opts: { apiBase: string; token?: string; timeoutMs?: number },
): Promise<string> {
  const url = `${opts.apiBase.replace(/\/$/, '')}/repos/${ref.owner}/${ref.repo}/issues/${ref.number}`;
  let response;
  // Loaded here, not at start-up: only an issue given as a GitHub URL needs an HTTP client.
  const { request } = await import('undici');
  try {
    response = await request(url, {
      method: 'GET',
      headers: {
        accept: 'application/vnd.github+json',
        'user-agent': 'piper-agent',
        'x-github-api-version': '2022-11-28',
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      },
      headersTimeout: opts.timeoutMs ?? 15_000,
      bodyTimeout: opts.timeoutMs ?? 15_000,
    });
  } catch (error) {
    throw new RuntimeError(
      'bad_spec',
      `cannot reach ${url}: ${(error as Error).message}`,
      'check the URL, the network, or GITHUB_API_URL for GitHub Enterprise',
    );
  }
  const body = await response.body.text();
  if (response.statusCode !== 200) {
    const hint =
      response.statusCode === 401 || response.statusCode === 403 || response.statusCode === 404
        ? 'set GITHUB_TOKEN for a private repository'
        : 'try again later';
    throw new RuntimeError(
      'bad_spec',
      `GitHub answered ${response.statusCode} for ${url}: ${body.slice(0, 200)}`,
      hint,
    );
  }
  const issue = JSON.parse(body) as { title?: string; body?: string | null; pull_request?: unknown };
  if (issue.pull_request) throw new RuntimeError('bad_spec', `${url} is a pull request, not an issue`);
  return `# ${issue.title ?? ''}\n\n${issue.body ?? ''}`.trim();
}
