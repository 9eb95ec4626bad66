import WebSocket from 'ws';
import type { Host } from './host';

/**
 * An RPC socket to `host` as a client that is not a browser opens it (tests, benches):
 * with the host's own Origin and its login cookie. Resolves once open.
 */
export async function openRpcSocket(host: Host): Promise<WebSocket> {
  const socket = new WebSocket(`${host.origin.replace(/^http/, 'ws')}/rpc`, {
    origin: host.origin,
    headers: { cookie: host.loginCookie },
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return socket;
}
