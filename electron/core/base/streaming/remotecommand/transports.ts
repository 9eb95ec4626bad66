/**
 * The transports the app's executor uses: SPDY through the session layer in ../spdy and
 * WebSocket through ../websocket.
 */
import { upgradeToSpdy } from '../spdy';
import type { Transports } from './executor';
import { spdyTransport } from './spdy-streams';
import { websocketTransport } from './websocket-streams';

export const defaultTransports: Transports = {
  spdy: spdyTransport(upgradeToSpdy),
  websocket: websocketTransport(),
};
