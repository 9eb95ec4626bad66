/**
 * The files bench's page: a worker thread that sends uploads through the core's contract
 * as the renderer does (files.upload, 512 KiB writes a few in flight, files.finish), over
 * a worker MessagePort, so each write is copied by structured clone from this thread to
 * the core's, as from Electron's renderer to its main process. Reading the local file and
 * serialising the pieces happen here, as they do in the renderer, not on the core's
 * thread. Driven by files.ts: `{ id, upload }` in, `{ id, result }` or `{ id, error }` out.
 */
import { open } from 'node:fs/promises';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { FileTransfer } from '../../shared/model';
import { filesLimits } from '../../shared/model';
import { createClient, type MessagePortLike } from '../../shared/rpc';

export interface SenderUpload {
  readonly nodeId: string;
  readonly containerId: string;
  readonly directory: string;
  readonly name: string;
  readonly size: number;
  /** The local file sent, a new buffer per piece (as File.slice().arrayBuffer() gives)... */
  readonly file?: string;
  /** ...or one piece sent again and again (the 1 GiB run: no file that large on disk). */
  readonly pattern?: Uint8Array;
}

export interface SenderResult {
  /** Date.now() at the call, to set against the transfer's bytesDoneAt. */
  readonly startedWall: number;
  /** The call to files.finish's answer. */
  readonly verifiedMs: number;
  readonly done: FileTransfer;
}

/** The RPC's port over a worker_threads MessagePort. */
export function workerPort(port: MessagePort): MessagePortLike {
  return {
    postMessage: (message) => port.postMessage(message),
    onMessage: (listener) => {
      const heard = (message: unknown): void => listener(message);
      port.on('message', heard);
      return { dispose: () => port.off('message', heard) };
    },
    onClose: (listener) => {
      port.once('close', listener);
      return { dispose: () => port.off('close', listener) };
    },
    close: () => port.close(),
  };
}

async function send(
  files: ReturnType<typeof createClient>['services']['files'],
  upload: SenderUpload,
): Promise<SenderResult> {
  const handle = upload.file !== undefined ? await open(upload.file, 'r') : undefined;
  try {
    const startedWall = Date.now();
    const started = performance.now();
    const transfer = await files.upload({
      nodeId: upload.nodeId,
      containerId: upload.containerId,
      directory: upload.directory,
      files: [{ path: upload.name, size: upload.size }],
    });
    const sending = new Set<Promise<void>>();
    for (let at = 0; at < upload.size; at += filesLimits.maxChunkBytes) {
      const length = Math.min(filesLimits.maxChunkBytes, upload.size - at);
      let piece: Uint8Array;
      if (handle !== undefined) {
        piece = new Uint8Array(length);
        const { bytesRead } = await handle.read(piece, 0, length, at);
        if (bytesRead !== length) throw new Error(`read ${bytesRead} at ${at}`);
      } else piece = upload.pattern!.subarray(0, length);
      const write = files.write(transfer.transferId, piece).finally(() => sending.delete(write));
      sending.add(write);
      if (sending.size >= filesLimits.writesInFlight) await Promise.race(sending);
    }
    await Promise.all(sending);
    const done = await files.finish(transfer.transferId);
    return { startedWall, verifiedMs: performance.now() - started, done };
  } finally {
    await handle?.close();
  }
}

if (parentPort !== null) {
  const { port } = workerData as { port: MessagePort };
  const client = createClient(workerPort(port));
  parentPort.on('message', (message: { id: number; upload: SenderUpload }) => {
    send(client.services.files, message.upload).then(
      (result) => parentPort!.postMessage({ id: message.id, result }),
      (error: unknown) => parentPort!.postMessage({ id: message.id, error: String(error) }),
    );
  });
}
