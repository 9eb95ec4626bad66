import { ipcRenderer } from 'electron';

/**
 * The whole preload: one message pipe. Main sends a MessagePort on `porthole:port`; a
 * MessagePort can't cross contextBridge, so it is posted into the page's own window, where
 * the renderer's platform layer picks it up. Every request and event then flows over that
 * port, and main validates the sender frame when it hands the port out.
 */
ipcRenderer.on('porthole:port', (event) => {
  window.postMessage('porthole:port', window.location.origin, [...event.ports]);
});
ipcRenderer.send('porthole:hello');
