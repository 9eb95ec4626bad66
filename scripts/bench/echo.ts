import type { Readable, Writable } from 'node:stream';

/** Both ends of something running `cat`: a Porthole session, or a crictl process. */
export interface EchoStreams {
  readonly stdin?: Writable | null;
  readonly stdout?: Readable | null;
}

/** Rounds that warm up both ends before anything is timed. */
const warmUpRounds = 20;

/**
 * Round trips of one short line through `cat` (a session with stdin on, or a process),
 * timed from the write to the echo's arrival; `rounds` timed ones after the warm-up.
 */
export async function echoRoundTrips(session: EchoStreams, rounds: number): Promise<number[]> {
  const stdout = session.stdout!;
  let received = '';
  let waiting: { line: string; resolve: (at: number) => void } | undefined;
  stdout.on('data', (chunk: Buffer) => {
    const at = performance.now();
    received += chunk.toString('latin1');
    if (waiting !== undefined && received.endsWith(waiting.line)) {
      received = '';
      const { resolve } = waiting;
      waiting = undefined;
      resolve(at);
    }
  });
  const rtts: number[] = [];
  for (let i = 0; i < rounds + warmUpRounds; i++) {
    const line = `${i}\n`;
    const arrived = new Promise<number>((resolve) => (waiting = { line, resolve }));
    const sent = performance.now();
    session.stdin!.write(line);
    const at = await arrived;
    if (i >= warmUpRounds) rtts.push(at - sent);
  }
  return rtts;
}
