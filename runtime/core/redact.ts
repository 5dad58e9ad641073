// URLs in logs, error messages and doctor output lose their credentials
// (mqtt://user:pw@host, https://token@mirror): logs end up in journald, support
// tickets and dashboards. Webhook URLs are logged by origin only (their path can
// be the secret, as the specification recommends).

/** The URL without user name and password; anything unparsable is not echoed at all. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

/** Every URL inside a text (an error message that quotes one) with its credentials removed. */
export function redactUrlsIn(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s/@'"]+@/gi, (m) => `${m.slice(0, m.indexOf('://') + 3)}***@`);
}
