/**
 * The errors of port forwarding, worded for the user: which address and port, and what to
 * do about it. Errno values and runtime texts go to `detail`.
 */
import { AppError } from '../../../../../shared/errors';

/** Host and port as a user types them: `[::1]:8080`, `127.0.0.1:8080`. */
export function formatAddress(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function describe(error: unknown): string {
  const errno = errnoOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return errno !== undefined && !message.includes(errno) ? `${errno}: ${message}` : message;
}

/** True when the host has no usable IPv6 loopback (no IPv6 stack, or ::1 not configured). */
export function isAddressUnavailable(error: unknown): boolean {
  const errno = errnoOf(error);
  return errno === 'EADDRNOTAVAIL' || errno === 'EAFNOSUPPORT' || errno === 'EPROTONOSUPPORT';
}

export function isAddressInUse(error: unknown): boolean {
  return (
    errnoOf(error) === 'EADDRINUSE' || (error as AppError | undefined)?.code === 'already-exists'
  );
}

/** Why we could not listen on `address:port`. */
export function listenError(error: unknown, address: string, port: number): AppError {
  const where = formatAddress(address, port);
  const detail = describe(error);
  const options = { cause: error };
  switch (errnoOf(error) ?? '') {
    case 'EADDRINUSE':
      return new AppError(
        {
          code: 'already-exists',
          message: `Local port ${port} is already in use on ${address}.`,
          detail: `listen ${where}: ${detail}`,
          hint: `Choose another local port, or 0 to let Porthole pick a free one; or stop the program that listens on ${where}.`,
        },
        options,
      );
    case 'EACCES':
    case 'EPERM':
      return new AppError(
        {
          code: 'permission-denied',
          message: `Porthole is not allowed to listen on ${where}.`,
          detail: `listen ${where}: ${detail}`,
          hint:
            port > 0 && port < 1024
              ? 'Ports below 1024 need administrator rights: choose a port from 1024 up, or 0 to let Porthole pick a free one.'
              : 'Choose another local port, or 0 to let Porthole pick a free one.',
        },
        options,
      );
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
    case 'ENOTFOUND':
    case 'EINVAL':
      return new AppError(
        {
          code: 'invalid-argument',
          message: `${address} is not an address of this machine.`,
          detail: `listen ${where}: ${detail}`,
          hint: 'Listen on 127.0.0.1 or ::1 (the default), or on an address this machine has.',
        },
        options,
      );
    default:
      return new AppError(
        {
          code: 'unavailable',
          message: `Could not listen on ${where}.`,
          detail: `listen ${where}: ${detail}`,
        },
        options,
      );
  }
}

export function invalidPort(port: number, what: string): AppError {
  return new AppError({
    code: 'invalid-argument',
    message: `${port} is not a valid ${what} port.`,
    hint: 'Ports are whole numbers from 1 to 65535 (0 for a local port picks a free one).',
  });
}

/**
 * The runtime could not serve a connection: its error channel carried text such as
 * "error forwarding port 8080 to pod …: failed to connect to localhost:8080 inside namespace
 * …: connection refused". The text itself is the detail.
 */
export function remoteConnectionError(text: string, remotePort: number): AppError {
  const refused = /connection refused/i.test(text);
  const gone = /not found|failed to find sandbox|does not exist/i.test(text);
  return new AppError({
    code: refused ? 'unavailable' : gone ? 'not-found' : 'unknown',
    message: refused
      ? `Nothing accepts connections on port ${remotePort} inside the pod.`
      : `The runtime could not connect to port ${remotePort} inside the pod.`,
    detail: text,
    ...(refused && {
      hint: `Check that the container listens on port ${remotePort} (on localhost or all addresses).`,
    }),
  });
}

/** A connection was accepted locally but there was no pod to send it to in time. */
export function noTargetError(reason: string, waitedMs: number): AppError {
  return new AppError({
    code: 'unavailable',
    message: 'The connection was refused: the forward has no pod to send it to right now.',
    detail: `${reason} (waited ${waitedMs} ms)`,
    hint: 'The forward keeps trying; connect again once it is active.',
  });
}
