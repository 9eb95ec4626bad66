/**
 * The lab speaks to its runtimes through Porthole's own CRI client: one client, one way
 * to do it, and the lab exercises it on every `up` and `down`.
 */
import { CriClient } from '../../electron/core/base/cri';

/** Runs `fn` with a client for the socket and always disposes it. */
export async function withCri<T>(
  socketPath: string,
  fn: (cri: CriClient) => Promise<T>,
): Promise<T> {
  const cri = CriClient.create({ endpoint: `unix://${socketPath}` });
  try {
    return await fn(cri);
  } finally {
    cri.dispose();
  }
}
