// `fix <issue>`: the issue as text, a path to a .md/.txt file, `-` for stdin, or a GitHub issue URL.
import { existsSync, readFileSync } from 'node:fs';
import { fetchIssue, parseIssueUrl } from '../../runtime/http/github-issue.js';
import { UsageError } from '../exit-codes.js';

export async function issueText(arg: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (arg === '-') {
    if (process.stdin.isTTY)
      throw new UsageError(
        "'-' reads the issue from standard input, but it is a terminal; pipe the issue in",
      );
    return readFileSync(0, 'utf8').trim();
  }
  const ref = parseIssueUrl(arg);
  if (ref)
    return fetchIssue(ref, {
      apiBase: env.GITHUB_API_URL ?? 'https://api.github.com',
      token: env.GITHUB_TOKEN,
    });
  if (/\.(md|txt)$/i.test(arg)) {
    if (!existsSync(arg)) throw new UsageError(`issue file ${arg} does not exist`);
    return readFileSync(arg, 'utf8').trim();
  }
  if (!arg.trim()) throw new UsageError('the issue is empty');
  return arg.trim();
}
