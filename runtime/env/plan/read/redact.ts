// Index URLs may carry credentials (`https://user:token@host/simple`). The one home of how a URL's
// userinfo is found: everything the plan shows a person or writes to a record goes through
// redactUrl (the userinfo part of every URL in the text becomes `***`), and the build's Redactor
// (runtime/env/plan/secrets.ts) takes the secrets it masks elsewhere from userinfoOf. Only
// pip.indexUrl / extraIndexUrls / findLinks / a requirement's url keep the raw value, for the
// builder, which passes them to pip out of band and redacts them itself.
const USERINFO = /\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#@\s]+)@/g;

export function redactUrl(text: string): string {
  return text.replace(USERINFO, '$1***@');
}

/** The userinfo of a URL (`user:password` or a lone token), when the URL starts with one. */
export function userinfoOf(url: string): string | undefined {
  const first = url.trim().matchAll(USERINFO).next();
  return !first.done && first.value.index === 0 ? first.value[2] : undefined;
}
