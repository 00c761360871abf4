// Index URLs may carry credentials (`https://user:token@host/simple`). Everything the plan shows a
// person or writes to a record goes through here: the userinfo part of every URL in the text
// becomes `***`. Only pip.indexUrl / extraIndexUrls / findLinks / a requirement's url keep the raw
// value, for the builder, which passes them to pip out of band and redacts them itself.
const USERINFO = /\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/?#@\s]+@/g;

export function redactUrl(text: string): string {
  return text.replace(USERINFO, '$1***@');
}

export function hasCredentials(text: string): boolean {
  USERINFO.lastIndex = 0;
  const found = USERINFO.test(text);
  USERINFO.lastIndex = 0;
  return found;
}
