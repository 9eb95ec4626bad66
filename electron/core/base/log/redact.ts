/**
 * Takes secrets out of text bound for the log. Porthole's log is meant to be attached to
 * bug reports, so nothing in it may let a reader in anywhere: not a token or a cookie,
 * not a one-time stream URL, not a password or a key, not a hashed known_hosts entry
 * (its salt and hash confirm a guessed host name). Rules go by shape, not by knowing the
 * value, so a secret that reaches a message by a route nobody foresaw is still caught.
 *
 * Every pattern is linear in the text (no nested quantifiers), and the text is cut to
 * `maxRedactedChars` first, so a huge message can't make redaction slow.
 */

export const redactedMark = '[redacted]';

/** Longer text is cut before redaction (and marked as cut). */
export const maxRedactedChars = 16_384;

/** Names whose values are secrets, in `name=value`, `name: value` and `"name": "value"`. */
const secretNames = String.raw`(?:access[_-]?token|refresh[_-]?token|id[_-]?token|token|password|passwd|passphrase|secret|client[_-]?secret|api[_-]?key|private[_-]?key|credentials?|auth[_-]?token)`;

interface Rule {
  readonly pattern: RegExp;
  readonly replace: string | ((match: string, ...groups: string[]) => string);
}

const rules: readonly Rule[] = [
  // Private key material, PEM or OpenSSH, whole block (or to the end when it was cut).
  {
    pattern:
      /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    replace: (_match, kind: string) => `[redacted ${kind}private key]`,
  },
  { pattern: /PuTTY-User-Key-File-\d+:[\s\S]*$/g, replace: '[redacted PuTTY private key]' },
  // Hashed known_hosts names: |1|salt|hash.
  { pattern: /\|1\|[A-Za-z0-9+/=]+\|[A-Za-z0-9+/=]+/g, replace: `|1|${redactedMark}` },
  // CRI streaming URLs carry a single-use token as their last path segment.
  {
    pattern: /\/(exec|attach|portforward)\/[A-Za-z0-9._~%+=-]+/gi,
    replace: (_match, kind: string) => `/${kind}/${redactedMark}`,
  },
  // A password in a URL: scheme://user:password@host.
  {
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]*@/gi,
    replace: (_match, prefix: string) => `${prefix}:${redactedMark}@`,
  },
  // Header lines whose whole value is a credential.
  {
    pattern: /\b(cookie|set-cookie|authorization|proxy-authorization)(\s*:\s*)[^\r\n]*/gi,
    replace: (_match, name: string, colon: string) => `${name}${colon}${redactedMark}`,
  },
  // Bearer and Basic credentials wherever they stand.
  {
    pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]+=*/g,
    replace: (_match, scheme: string) => `${scheme} ${redactedMark}`,
  },
  // Browser mode's session cookie, `porthole-<port>=…` (`__Host-` with TLS).
  {
    pattern: /\b((?:__Host-)?porthole-\d+)=[^\s;,"'&]+/g,
    replace: (_match, name: string) => `${name}=${redactedMark}`,
  },
  // "password": "…" (JSON), in any case, escapes included.
  {
    pattern: new RegExp(String.raw`"(${secretNames})"(\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi'),
    replace: (_match, name: string, colon: string) => `"${name}"${colon}"${redactedMark}"`,
  },
  // password=…, ?token=…&, password: … (YAML, logs of other tools).
  {
    pattern: new RegExp(
      String.raw`\b(${secretNames})(\s*[=:]\s*)(?!\[redacted\])[^\s&;,"']+`,
      'gi',
    ),
    replace: (_match, name: string, separator: string) => `${name}${separator}${redactedMark}`,
  },
];

/** `text` with every secret it carries replaced by a mark that says what stood there. */
export function redact(text: string): string {
  let result =
    text.length > maxRedactedChars
      ? `${text.slice(0, maxRedactedChars)}… (${text.length - maxRedactedChars} more characters cut)`
      : text;
  for (const rule of rules) {
    rule.pattern.lastIndex = 0;
    result = result.replace(rule.pattern, rule.replace as (match: string) => string);
  }
  return result;
}
