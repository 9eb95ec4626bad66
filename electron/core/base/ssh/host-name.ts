/**
 * What Porthole accepts as the name of an SSH host, wherever a name comes from: a node
 * profile, a ProxyJump hop, and the HostName and HostKeyAlias ssh_config resolves to.
 *
 * Names end up in known_hosts, whose host field is a pattern list with no escape syntax:
 * `,` separates patterns, `*` and `?` are wildcards, `!` negates, `[…]:port` names a port,
 * `|1|` starts a hashed name, and whitespace or `#` ends the field. A profile host such as
 * `github.com,x.evil.example` would be written as two patterns, and from then on OpenSSH
 * (and `ssh-keygen -F github.com`) would trust the attacker's key for github.com. So a
 * host is a DNS-style name or an IP address, nothing else: letters, digits, `.`, `-` and
 * `_` (ssh_config aliases use it), not starting with `-` or `.`; or an IPv6 literal
 * (without brackets; a zone such as `%eth0` is allowed).
 */
import { isIP } from 'node:net';

/** Longest DNS name (RFC 1035, without the trailing dot). */
export const maxHostNameLength = 253;

const nameCharacter = /[A-Za-z0-9._-]/;

/**
 * Why `host` is not a host name, in words that end a sentence ("contains ","."), or
 * undefined when it is one.
 */
export function hostNameProblem(host: string): string | undefined {
  if (host === '') return 'is empty';
  if (host.length > maxHostNameLength) {
    return `is longer than ${maxHostNameLength} characters`;
  }
  if (isIP(host) === 6) return undefined;
  if (host.startsWith('[')) return 'is in brackets: write an IPv6 address without them';
  if (host.startsWith('-')) return 'starts with "-" (it would be read as an option)';
  if (host.startsWith('.')) return 'starts with "."';
  for (const character of host) {
    if (nameCharacter.test(character)) continue;
    if (/\s/.test(character)) return 'contains a space';
    const shown = /[\x20-\x7e]/.test(character)
      ? `"${character}"`
      : `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    return `contains ${shown}`;
  }
  return undefined;
}

/** The hint every refused host name carries. */
export const hostNameHint =
  'A host is a name (letters, digits, dots, hyphens, underscores) or an IP address, one per node: known_hosts would read anything else as patterns.';
