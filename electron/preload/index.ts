import { ipcRenderer } from 'electron';

/**
 * The whole preload: one message pipe, nothing on `window`. The page asks for it by
 * posting 'porthole:hello' to itself (so a port is never sent before the page listens);
 * main checks the sender frame and answers with a MessagePort on 'porthole:port'. A
 * MessagePort can't cross contextBridge, so it is posted into the page's own window,
 * where the renderer's platform layer picks it up. Every request and event then flows
 * over that port.
 */
window.addEventListener('message', (event: MessageEvent) => {
  if (event.source !== window || event.origin !== window.location.origin) return;
  if (event.data !== 'porthole:hello') return;
  ipcRenderer.send('porthole:hello');
});

ipcRenderer.on('porthole:port', (event) => {
  window.postMessage('porthole:port', window.location.origin, [...event.ports]);
});
