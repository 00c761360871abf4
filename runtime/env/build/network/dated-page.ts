// One project's page of the index as it stood at a date: the PEP 691 JSON page the upstream index
// gives (with PEP 700's `upload-time` for each file), its files uploaded at or after the cutoff
// dropped, written back as a PEP 503 HTML page, which every pip reads (bullseye's 20.3 knows no
// JSON). A file with no upload time cannot be dated and is dropped too: the page must never offer
// what the date excludes. Links are made absolute against the upstream page (and a file on the
// upstream's own origin, which may want its login, sent through the view), hashes and
// requires-python and yanked kept, so pip checks and chooses exactly as against the index itself.

interface JsonFile {
  filename?: unknown;
  url?: unknown;
  hashes?: Record<string, unknown>;
  'requires-python'?: unknown;
  yanked?: unknown;
  'upload-time'?: unknown;
}

export interface DatedPage {
  html: string;
  kept: number;
  dropped: number;
}

const ATTR: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ATTR[c]!);
}

/** Where the page sends pip for a file: the view's own path for one behind the upstream's login. */
export type Localize = (href: URL) => URL;

function link(file: JsonFile, pageUrl: string, localize: Localize): string | null {
  if (typeof file.filename !== 'string' || typeof file.url !== 'string') return null;
  const href = localize(new URL(file.url, pageUrl));
  const sha256 = file.hashes?.sha256;
  if (typeof sha256 === 'string' && /^[0-9a-f]{64}$/i.test(sha256)) href.hash = `sha256=${sha256}`;
  const attrs = [`href="${escape(href.href)}"`];
  if (typeof file['requires-python'] === 'string')
    attrs.push(`data-requires-python="${escape(file['requires-python'])}"`);
  if (file.yanked) attrs.push(`data-yanked="${escape(typeof file.yanked === 'string' ? file.yanked : '')}"`);
  return `<a ${attrs.join(' ')}>${escape(file.filename)}</a><br/>`;
}

/** `json` is the upstream's PEP 691 page of one project, fetched from `pageUrl`. */
export function datedPage(
  json: unknown,
  pageUrl: string,
  cutoffMs: number,
  localize: Localize = (href) => href,
): DatedPage {
  const files = (json as { files?: unknown } | null)?.files;
  const lines: string[] = [];
  let dropped = 0;
  for (const file of Array.isArray(files) ? (files as JsonFile[]) : []) {
    const uploaded = typeof file['upload-time'] === 'string' ? Date.parse(file['upload-time']) : NaN;
    const line = Number.isNaN(uploaded) || uploaded >= cutoffMs ? null : link(file, pageUrl, localize);
    if (line === null) dropped++;
    else lines.push(line);
  }
  const name = escape(String((json as { name?: unknown } | null)?.name ?? ''));
  const html = `<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0"><title>Links for ${name}</title></head><body>\n${lines.join('\n')}\n</body></html>\n`;
  return { html, kept: lines.length, dropped };
}
