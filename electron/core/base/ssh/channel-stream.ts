/**
 * An ssh2 channel as an ordinary Duplex. ssh2's own Channel overrides `destroy()` without
 * an error argument and reports a dropped connection as a clean end of data, so a consumer
 * could take a cut-off stream for a finished one. This wrapper keeps Node's stream
 * semantics: `destroy(error)` errors the stream, a lost connection arrives as an error,
 * and backpressure runs both ways (the channel is paused while our reader is full, and
 * writes complete only when the SSH window took them).
 */
import { Duplex } from 'node:stream';
import type { ClientChannel } from './ssh2';

export class ChannelStream extends Duplex {
  private closedByPeer = false;

  constructor(private readonly channel: ClientChannel) {
    // Like a TCP socket from net.connect: when the peer ends, our side ends too. Buffers
    // of 256 KiB, not 16: the SSH window is 2 MiB, and pausing the channel at every 16 KiB
    // cost a fifth of the throughput.
    super({
      allowHalfOpen: false,
      readableHighWaterMark: 256 * 1024,
      writableHighWaterMark: 256 * 1024,
    });
    channel.on('data', this.onData);
    channel.once('end', this.onEnd);
    channel.once('close', this.onClose);
    channel.on('error', this.onError);
  }

  private readonly onData = (chunk: Buffer): void => {
    if (!this.push(chunk)) this.channel.pause();
  };

  private readonly onEnd = (): void => {
    this.push(null);
  };

  private readonly onClose = (): void => {
    // Data already received stays readable; autoDestroy closes us once it has been read.
    this.closedByPeer = true;
    this.push(null);
  };

  private readonly onError = (error: Error): void => {
    this.destroy(error);
  };

  /** The SSH connection is gone: error the stream without touching the dead channel. */
  abandon(error: Error): void {
    this.closedByPeer = true;
    this.destroy(error);
  }

  /** Ends the stream without an error (its connection is being closed on purpose). */
  release(): void {
    this.destroy();
  }

  override _read(): void {
    this.channel.resume();
  }

  override _write(
    chunk: Buffer,
    encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    if (this.closedByPeer) {
      callback(new Error('The SSH channel is closed'));
      return;
    }
    this.channel.write(chunk, encoding, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.closedByPeer) this.channel.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.channel.off('data', this.onData);
    this.channel.off('end', this.onEnd);
    this.channel.off('close', this.onClose);
    // Keep a listener: ssh2 may still report an error on a channel we no longer read.
    this.channel.off('error', this.onError);
    this.channel.on('error', () => {});
    if (!this.closedByPeer) {
      // ssh2's close() sends CHANNEL_CLOSE; end() first flushes EOF like a FIN would.
      this.channel.end();
      this.channel.close();
    }
    callback(error);
  }
}
