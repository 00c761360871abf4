// Index URLs may carry credentials (`https://user:token@host/simple`). The one home of how a URL's
// userinfo is found: everything the plan shows a person or writes to a record goes through
// redactUrl (the userinfo part of every URL in the text becomes `***`), and the build's Redactor
// (runtime/env/plan/secrets.ts) takes the secrets it masks elsewhere from userinfoOf. Only
// pip.indexUrl / extraIndexUrls / findLinks / a requirement's url keep the raw value, for the
// builder, which passes them to pip out of band and redacts them itself.
// The scheme is `[a-zA-Z][a-zA-Z0-9+.-]*` starting at a word boundary, the userinfo everything up to
// an `@` but `/ ? # @` and whitespace. Found from each `://` outward in one pass: the regular
// expression of these rules tried every letter of a run like `a.a.a.…` as a scheme's start, and took
// 42 s on 320 KB of a requirement line.
const SCHEME_CHAR = /[a-zA-Z0-9+.-]/;
const LETTER = /[a-zA-Z]/;
const WORD_CHAR = /\w/;
const NOT_USERINFO = /[/?#@\s]/;

interface Userinfo {
  /** Where the URL's scheme starts, and where its userinfo starts and ends (the `@` after it). */
  start: number;
  from: number;
  to: number;
}

/** Every URL with a userinfo in `text`, left to right, as the rules above find them. */
function* userinfos(text: string): Generator<Userinfo> {
  let done = 0;
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    let run = at;
    while (run > done && SCHEME_CHAR.test(text[run - 1]!)) run--;
    let start = -1;
    for (let p = run; p < at && start < 0; p++)
      if (LETTER.test(text[p]!) && (p === 0 || !WORD_CHAR.test(text[p - 1]!))) start = p;
    if (start < 0) continue;
    let to = at + 3;
    while (to < text.length && !NOT_USERINFO.test(text[to]!)) to++;
    if (to === at + 3 || text[to] !== '@') continue;
    yield { start, from: at + 3, to };
    done = to + 1;
    at = to - 2;
  }
}

export function redactUrl(text: string): string {
  let out = '';
  let last = 0;
  for (const { from, to } of userinfos(text)) {
    out += `${text.slice(last, from)}***`;
    last = to;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** The userinfo of a URL (`user:password` or a lone token), when the URL starts with one. */
export function userinfoOf(url: string): string | undefined {
  const trimmed = url.trim();
  const first = userinfos(trimmed).next();
  return !first.done && first.value.start === 0 ? trimmed.slice(first.value.from, first.value.to) : undefined;
}
