// The one place where secrets are taken out of what the gateway shows: every
// log line (core/log.ts runs each one through redactSecrets), error texts that
// are stored or answered (a delivery's last_error), dashboard fields and status
// objects. Logs end up in journald, support tickets and dashboards, so a URL
// loses its user name and password (mqtt://user:pw@host, https://token@mirror)
// and the value of every query parameter (rtsp://cam/?token=..., ?pwd=...).
// Webhook URLs are shown by origin only: their path can be the secret, as the
// specification recommends.

const HIDDEN = '***';

/** Anything that looks like an absolute URL inside a text, up to a space, a quote or a backslash (a JSON escape). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`\\]+/gi;

/** The URL without user name, password, query values and fragment; anything unparsable is not echoed at all. */
export function redactedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(invalid URL)';
  }
  u.username = '';
  u.password = '';
  u.hash = '';
  const names = [...u.searchParams.keys()];
  if (names.length) u.search = names.map((name) => `${encodeURIComponent(name)}=${HIDDEN}`).join('&');
  return u.toString();
}

/** scheme://host:port of a URL whose path may be a secret (a webhook receiver). */
export function urlOrigin(url: string): string {
  try {
    const u = new URL(url);
    return u.origin === 'null' ? `${u.protocol}//${u.host}` : u.origin;
  } catch {
    return '(invalid URL)';
  }
}

export interface RedactOptions {
  /** URLs known to be secret beyond their origin (webhook receivers): each is replaced by its origin wherever it appears */
  originOnly?: Iterable<string>;
}

/**
 * A text (a log line, an error message) with every URL in it redacted: user
 * info and query values hidden, and the URLs of options.originOnly (with or
 * without their user info) cut to their origin.
 */
export function redactSecrets(text: string, options: RedactOptions = {}): string {
  let out = text;
  for (const secret of options.originOnly ?? []) {
    for (const form of urlForms(secret)) out = out.split(form).join(urlOrigin(secret));
  }
  return out.replace(URL_IN_TEXT, (found) => {
    if (!/[@?#]/.test(found)) return found; // nothing to hide: left exactly as written
    const shown = redactedUrl(found);
    // a URL the parser refuses keeps its scheme and host only, never its user info
    return shown === '(invalid URL)' ? found.replace(/^([^:]+:\/\/)(?:[^/@]*@)?([^/?#]*).*$/s, `$1$2`) : shown;
  });
}

/** A JSON-like value (a status object, a dashboard answer) with redactSecrets applied to every string in it. */
export function redactDeep<T>(value: T, options: RedactOptions = {}): T {
  if (typeof value === 'string') return redactSecrets(value, options) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, options)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, options)])) as T;
  }
  return value;
}

/** The ways a URL can be written in a text: as configured, normalised, without user info. */
function urlForms(url: string): string[] {
  const forms = new Set<string>([url]);
  try {
    const u = new URL(url);
    forms.add(u.toString());
    u.username = '';
    u.password = '';
    forms.add(u.toString());
    forms.add(u.toString().replace(/\/$/, ''));
  } catch {
    /* unparsable: only its literal form */
  }
  // longest first, so a shorter form never leaves the tail of a longer one behind
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}
