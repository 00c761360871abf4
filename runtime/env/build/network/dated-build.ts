// A build under an index date (spec.indexDate): its pip is given piper's dated view of the index
// (dated-index.ts) instead of the index itself, for the whole build, and the view is closed after
// it. Said in one sources line either way: what was dated, or why the date could not apply (a box
// on the engine's bridge cannot reach a server on the host's 127.0.0.1). With no index configured,
// the one dated is pip's own default, as the sandbox's pip names it (piper names no index).
import { redactUrl } from '../../plan/read/redact.js';
import type { BuildInput } from '../build-context.js';
import { startDatedIndex } from './dated-index.js';
import { pipDefaultIndex } from './pip-default-index.js';

export interface DatedBuild {
  input: BuildInput;
  sentence: string | null;
  close(): Promise<void>;
}

const NOTHING = async (): Promise<void> => undefined;

function notApplied(input: BuildInput, date: string, why: string): DatedBuild {
  return { input, sentence: `index date ${date}: not applied: ${why}`, close: NOTHING };
}

export async function withIndexDate(input: BuildInput): Promise<DatedBuild> {
  const date = input.spec.indexDate;
  if (!date || input.spec.sources.used !== 'index' || input.pip.network.noIndex)
    return { input, sentence: null, close: NOTHING };
  if (await input.engine.hasBridgeNetwork())
    return notApplied(
      input,
      date,
      "the build's boxes are on the engine's bridge, which cannot reach the host's 127.0.0.1",
    );
  // With no index configured, pip's own default, as the sandbox's pip names it.
  const upstream = input.pip.indexUrl ?? (input.pip.defaultIndex ? await pipDefaultIndex(input) : null);
  if (!upstream) return notApplied(input, date, 'no index is configured and pip named none');
  const ca = input.pip.network.files.find((f) => f.name === 'ca.pem')?.data ?? null;
  const index = await startDatedIndex({ upstream, cutoffMs: Date.parse(date), ca });
  const extra = input.pip.extraIndexUrls.length
    ? `; its extra index URLs are not asked (${input.pip.extraIndexUrls.map(redactUrl).join(', ')}): they are not dated`
    : '';
  return {
    input: { ...input, pip: { ...input.pip, indexUrl: index.url, extraIndexUrls: [] } },
    sentence: `index date ${date}: pip reads ${redactUrl(upstream)} as it stood then (files uploaded before it only, through piper's view of it on ${index.url})${extra}`,
    close: () => index.close(),
  };
}
