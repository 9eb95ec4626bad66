import { lstat, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * Porthole's own lab (`npm run lab -- up`) runs its runtimes on private sockets no
 * discovery list names, and says where they are in `<labdir>/lab.json`. Reading that
 * file is how Discover finds a running lab: the first thing a new user tries.
 */

/** As scripts/lab: PORTHOLE_LAB_DIR, default /tmp/porthole-lab. */
export const defaultLabDir = '/tmp/porthole-lab';

export function labStateFile(env: Readonly<Record<string, string | undefined>>): string {
  const dir = env.PORTHOLE_LAB_DIR?.trim();
  return join(resolve(dir === undefined || dir === '' ? defaultLabDir : dir), 'lab.json');
}

export interface LabEndpoint {
  /** The runtime's id in the lab, e.g. "containerd-2". */
  readonly id: string;
  readonly endpoint: string;
}

export type LabStateResult =
  | { readonly state: 'absent' }
  | { readonly state: 'loaded'; readonly runtimes: readonly LabEndpoint[] }
  | { readonly state: 'invalid'; readonly message: string };

/**
 * Reads the lab's state file; a missing one is normal, a broken or untrustworthy one is
 * reported, never thrown. The file usually sits in /tmp, where anyone can create files:
 * one another user owns, or may write, could point Porthole at a socket of theirs, so it
 * is only believed when it (and its directory) belong to this user or root and are not
 * writable by others.
 */
export async function readLabState(path: string): Promise<LabStateResult> {
  let text: string;
  try {
    const problem = (await untrusted(path)) ?? (await untrusted(join(path, '..')));
    if (problem !== undefined)
      return { state: 'invalid', message: `${path} was ignored: ${problem}.` };
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'absent' };
    return { state: 'invalid', message: `Could not read ${path}: ${(error as Error).message}` };
  }
  return parseLabState(text, path);
}

export function parseLabState(text: string, path: string): LabStateResult {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return { state: 'invalid', message: `${path} is not valid JSON: ${(error as Error).message}` };
  }
  const runtimes = (document as { runtimes?: unknown } | null)?.runtimes;
  if (!Array.isArray(runtimes)) {
    return { state: 'invalid', message: `${path} is not a lab description (no "runtimes").` };
  }
  const found: LabEndpoint[] = [];
  for (const runtime of runtimes as unknown[]) {
    const { id, endpoint } = (runtime ?? {}) as { id?: unknown; endpoint?: unknown };
    if (typeof id === 'string' && typeof endpoint === 'string' && endpoint.trim() !== '') {
      found.push({ id, endpoint: endpoint.trim() });
    }
  }
  return { state: 'loaded', runtimes: found };
}

/** Why a file or directory can't be trusted, or undefined; throws ENOENT when it's absent. */
async function untrusted(path: string): Promise<string | undefined> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return `${path} is a symlink`;
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid && info.uid !== 0) {
    return `${path} belongs to another user (uid ${info.uid})`;
  }
  // Group- or world-writable; a sticky directory (/tmp itself) is fine for its owner's files.
  const sticky = info.isDirectory() && (info.mode & 0o1000) !== 0;
  if ((info.mode & 0o022) !== 0 && !sticky) return `others may write to ${path}`;
  return undefined;
}
