/**
 * The one place where SSH failures (ssh2's errors, socket errno values, channel open
 * failures) become AppErrors a user can act on. Messages name the node and the address,
 * never key material or passphrases.
 */
import { AppError } from '../../../../shared/errors';
import type { SshConnectionState } from '../../../../shared/model';

/** Which server we were talking to: the node's name and the hop's address. */
export interface HopContext {
  /** The node the user knows ("node-1"). */
  readonly node: string;
  readonly user: string;
  readonly hostName: string;
  readonly port: number;
  /** Set for a jump host: the alias or name of this hop. */
  readonly jumpHost?: string;
}

/** Errors from ssh2 carry a `level` (client-socket, client-authentication, …). */
interface Ssh2Error extends Error {
  readonly level?: string;
  readonly code?: string | number;
  readonly reason?: number;
}

export function where(hop: HopContext): string {
  const address = `${hop.user}@${hop.hostName}:${hop.port}`;
  return hop.jumpHost !== undefined
    ? `jump host ${hop.jumpHost} (${address}) on the way to ${hop.node}`
    : `${hop.node} (${address})`;
}

export interface AuthAttempts {
  /** What was offered, in words: "ssh-agent key SHA256:…", "/root/.ssh/id_ed25519". */
  readonly offered: readonly string[];
  readonly skipped: readonly string[];
}

/** A failure while connecting or logging in to one hop. */
export function toConnectError(error: unknown, hop: HopContext, auth?: AuthAttempts): AppError {
  if (error instanceof AppError) return error;
  const e = (error instanceof Error ? error : new Error(String(error))) as Ssh2Error;
  const at = where(hop);
  const target = `${hop.hostName}:${hop.port}`;
  if (e.level === 'client-authentication') {
    const tried = auth?.offered.length ? auth.offered.join(', ') : 'no key at all';
    return new AppError(
      {
        code: 'unauthenticated',
        message: `${at} did not accept the login as ${hop.user}: none of the offered keys is authorized.`,
        detail: [
          `Offered: ${tried}.`,
          ...(auth?.skipped.length ? [`Not offered: ${auth.skipped.join('; ')}.`] : []),
        ].join(' '),
        hint: `Add your public key to ~${hop.user}/.ssh/authorized_keys on that host, or point IdentityFile (in ~/.ssh/config or the node settings) at a key it accepts.`,
      },
      { cause: error },
    );
  }
  switch (String(e.code)) {
    case 'ECONNREFUSED':
      return new AppError(
        {
          code: 'unavailable',
          message: `Nothing accepts SSH connections at ${target} (connection refused).`,
          detail: e.message,
          hint: `Check that sshd runs on ${hop.hostName} and listens on port ${hop.port}.`,
        },
        { cause: error },
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new AppError(
        {
          code: 'not-found',
          message: `The host name ${hop.hostName} could not be resolved.`,
          detail: e.message,
          hint: 'Check the name (or the HostName in ~/.ssh/config) and your DNS.',
        },
        { cause: error },
      );
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return new AppError(
        {
          code: 'unavailable',
          message: `${target} cannot be reached from here (${String(e.code)}).`,
          detail: e.message,
          hint: 'Check the network, a VPN, or whether this node needs a jump host (ProxyJump).',
        },
        { cause: error },
      );
    case 'ECONNRESET':
    case 'EPIPE':
      return new AppError(
        {
          code: 'connection-lost',
          message: `${at} closed the connection during the SSH handshake.`,
          detail: e.message,
          hint: 'sshd may be refusing this address (AllowUsers, MaxStartups, fail2ban…); its log says why.',
        },
        { cause: error },
      );
    default:
      break;
  }
  if (e.level === 'handshake' || /no matching/i.test(e.message)) {
    return new AppError(
      {
        code: 'protocol-error',
        message: `The SSH handshake with ${at} failed: ${e.message}.`,
        detail: e.message,
        hint: 'The server and Porthole share no algorithm; the server may be very old or locked down.',
      },
      { cause: error },
    );
  }
  return new AppError(
    {
      code: 'unavailable',
      message: `Could not open an SSH connection to ${at}.`,
      detail: e.message,
    },
    { cause: error },
  );
}

/** A channel (direct-tcpip or streamlocal) the server would not open. */
export function toChannelError(
  error: unknown,
  node: string,
  what: string,
  forwarding: 'tcp' | 'streamlocal',
): AppError {
  if (error instanceof AppError) return error;
  const e = (error instanceof Error ? error : new Error(String(error))) as Ssh2Error;
  // RFC 4254 open failure reason 1: administratively prohibited.
  if (e.reason === 1 || /prohibited/i.test(e.message)) {
    const option = forwarding === 'tcp' ? 'AllowTcpForwarding' : 'AllowStreamLocalForwarding';
    return new AppError(
      {
        code: 'permission-denied',
        message: `The SSH server on ${node} does not allow forwarding to ${what}.`,
        detail: e.message,
        hint: `Porthole needs "${option} yes" in the node's sshd_config (for this user).`,
      },
      { cause: error },
    );
  }
  return new AppError(
    {
      code: 'unavailable',
      message: `The SSH server on ${node} could not connect to ${what}.`,
      detail: e.message,
      hint:
        forwarding === 'tcp'
          ? 'Nothing may be listening there any more (a stream URL is valid for one minute).'
          : 'Check that the runtime runs on the node and that your SSH user may open its socket.',
    },
    { cause: error },
  );
}

/** Why nothing can be opened on a node right now: it is reconnecting, or disconnected. */
export function notConnectedError(
  node: string,
  state:
    | {
        readonly state: 'reconnecting';
        readonly reason: string;
        readonly attempt: number;
        readonly lastError?: string;
      }
    | { readonly state: 'disconnected'; readonly reason: string },
): AppError {
  if (state.state === 'reconnecting') {
    return new AppError({
      code: 'unavailable',
      message: `The SSH connection to ${node} is reconnecting (attempt ${state.attempt}) after: ${clause(state.reason)}.`,
      ...(state.lastError !== undefined && { detail: `Last attempt: ${state.lastError}` }),
      hint: 'Try again once the node is connected.',
    });
  }
  return new AppError({
    code: 'unavailable',
    message: `There is no SSH connection to ${node}: ${clause(state.reason)}.`,
    hint: 'Reconnect the node.',
  });
}

/** A reason as a clause inside a sentence: no final period. */
function clause(text: string): string {
  return text.trim().replace(/\.+$/, '');
}

export function connectionLostError(node: string, reason: string): AppError {
  return new AppError({
    code: 'connection-lost',
    message: `SSH connection to ${node} dropped: ${reason}`,
    hint: 'Porthole reconnects on its own; start the session again once the node is back.',
  });
}

/** Why a connection dropped, in words (ssh2 and socket errors are terse). */
export function dropReason(error: Error & { code?: unknown }): string {
  if (/keepalive/i.test(error.message)) return 'no answer to keepalives (network or node down)';
  if (error.code === 'ECONNRESET') return 'connection reset';
  if (error.code === 'ETIMEDOUT') return 'connection timed out';
  if (error.code === 'EPIPE') return 'connection broken';
  return error.message;
}

/** The reason a connection is not connected, or `connected`. */
export function describeState(state: SshConnectionState): string {
  switch (state.state) {
    case 'connected':
      return 'connected';
    case 'reconnecting':
      return state.reason;
    case 'disconnected':
      return state.reason;
  }
}

/** The caller gave up on a channel (its signal aborted). */
export function tunnelCancelled(node: string): AppError {
  return new AppError({
    code: 'cancelled',
    message: `Opening a tunnel through ${node} was cancelled.`,
  });
}
