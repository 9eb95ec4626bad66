/**
 * The transports the app's executor uses: SPDY through the session layer in ../spdy and
 * WebSocket through ../websocket.
 */
import { upgradeToSpdy } from '../spdy';
import type { Transports } from './executor';
import { spdyStreamCreator } from './spdy-streams';
import { websocketStreamCreator } from './websocket-streams';

export const defaultTransports: Transports = {
  spdy: spdyStreamCreator(upgradeToSpdy),
  websocket: websocketStreamCreator(),
};
