// The user's index settings, pip's and uv's together: piper builds with pip, so pip's own settings
// come first (pip.conf, PIP_*), and uv's (uv-user.ts) add to them — uv's default index is used when
// pip names none, its extra and flat indexes are asked beside pip's. A uv default that differs from
// pip's index is said and left out: two indexes each meant to replace the default cannot both.
import { readUserPipConfig, type UserPipConfig } from '../pip-config.js';
import { redactUrl } from '../read/redact.js';
import { readUserUv } from './uv-user.js';

export function readUserIndexes(env: NodeJS.ProcessEnv): { user: UserPipConfig; notes: string[] } {
  const pip = readUserPipConfig(env);
  const uv = readUserUv(env);
  const notes = [...uv.notes];
  const from = [...pip.from];
  let indexUrl = pip.indexUrl;
  if (uv.indexUrl !== null && indexUrl === null) indexUrl = uv.indexUrl;
  else if (uv.indexUrl !== null && uv.indexUrl !== indexUrl)
    notes.push(
      `uv's index ${redactUrl(uv.indexUrl)} (${uv.indexFrom ?? 'uv'}) not used: your pip configuration's ${redactUrl(indexUrl!)} is the index`,
    );
  const add = (list: string[], more: string[]) => [...list, ...more.filter((u) => !list.includes(u))];
  if (uv.indexUrl !== null || uv.extraIndexUrls.length || uv.findLinks.length) from.push(...uv.from);
  return {
    user: {
      ...pip,
      indexUrl,
      extraIndexUrls: add(pip.extraIndexUrls, uv.extraIndexUrls).filter((u) => u !== indexUrl),
      findLinks: add(pip.findLinks, uv.findLinks),
      from,
    },
    notes,
  };
}
