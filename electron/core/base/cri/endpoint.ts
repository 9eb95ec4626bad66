import { AppError } from '../../../../shared/errors';

/** A CRI endpoint Porthole can dial: only unix sockets are supported. */
export interface UnixEndpoint {
  readonly kind: 'unix';
  /** Absolute filesystem path of the socket. */
  readonly path: string;
  /** The canonical form, `unix:///path`, used as the gRPC target and shown to users. */
  readonly uri: string;
}

/** Linux `sockaddr_un.sun_path` holds 108 bytes including the terminating NUL. */
const maxSocketPathBytes = 107;

/**
 * Parses an endpoint the way crictl accepts it: `unix:///path`, or a bare absolute path
 * (the legacy form). `tcp://` and `npipe://` are recognised and refused with a reason,
 * so a user who copied a Windows or remote setting learns why it does not work.
 */
export function parseEndpoint(raw: string): UnixEndpoint {
  const value = raw.trim();
  if (value === '') {
    throw new AppError({
      code: 'invalid-argument',
      message: 'No runtime endpoint was given.',
      hint: 'Enter a socket such as unix:///run/containerd/containerd.sock.',
    });
  }
  if (value.startsWith('/')) return unixEndpoint(value, raw);

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  switch (scheme ?? '') {
    case 'unix':
      return unixEndpoint(value.replace(/^unix:(\/\/)?/i, ''), raw);
    case 'tcp':
      throw new AppError({
        code: 'unsupported-endpoint',
        message: `Porthole does not dial CRI endpoints over TCP (${value}).`,
        detail:
          'Runtimes serve the CRI on a unix socket; an exposed TCP port has no authentication.',
        hint: 'Reach the node over SSH and use its runtime socket instead.',
      });
    case 'npipe':
      throw new AppError({
        code: 'unsupported-endpoint',
        message: `Windows named pipe endpoints are not supported yet (${value}).`,
        hint: 'Use a Linux node, locally or over SSH.',
      });
    default:
      throw new AppError({
        code: 'invalid-argument',
        message: `"${value}" is not a runtime endpoint.`,
        hint: 'Use the form unix:///path/to/runtime.sock.',
      });
  }
}

function unixEndpoint(path: string, raw: string): UnixEndpoint {
  if (!path.startsWith('/')) {
    throw new AppError({
      code: 'invalid-argument',
      message: `The socket path in "${raw.trim()}" must be absolute.`,
      hint: 'Use the form unix:///path/to/runtime.sock (three slashes).',
    });
  }
  const normalized = path.replace(/\/{2,}/g, '/');
  if (new TextEncoder().encode(normalized).length > maxSocketPathBytes) {
    throw new AppError({
      code: 'invalid-argument',
      message: `The socket path ${normalized} is too long for a unix socket (max ${maxSocketPathBytes} bytes).`,
      hint: 'Move the socket, or link it from a shorter path.',
    });
  }
  return { kind: 'unix', path: normalized, uri: `unix://${normalized}` };
}
