/**
 * Who the SSH user is on the node, for the runtime probe's permission advice: its uid and
 * groups, and a group's name.
 */
import { logger } from '../log';
import type { SftpFiles } from './remote-files';
import type { RemoteIds } from './runtime-probe';
import type { Ssh2Client } from './ssh2';

const sshLog = logger('ssh');

/**
 * The SSH user's uid and groups: `id -u; id -G` on the node (a fixed command, nothing
 * from input in it), or, for an account without a shell (nologin), /etc/passwd and
 * /etc/group read over SFTP.
 */
export async function remoteIds(
  node: string,
  user: string,
  client: () => Ssh2Client,
  files: () => Promise<SftpFiles>,
): Promise<RemoteIds | undefined> {
  const output = await new Promise<string>((resolve, reject) =>
    client().exec('id -u; id -G', (error, channel) => {
      if (error) {
        reject(error);
        return;
      }
      let text = '';
      channel.setEncoding('utf8');
      channel.on('data', (chunk: string) => (text += chunk));
      channel.stderr.resume();
      channel.once('close', () => resolve(text));
    }),
  ).catch((error: unknown) => {
    sshLog.debug(`\`id\` could not run on ${node}; reading /etc/passwd instead.`, error);
    return '';
  });
  const [uidLine, groupsLine] = output.trim().split('\n');
  if (uidLine !== undefined && /^\d+$/.test(uidLine.trim())) {
    const gids = (groupsLine ?? '').trim().split(/\s+/).filter(Boolean).map(Number);
    return { uid: Number(uidLine), gids };
  }
  // Without the ids, the runtime probe gives no permission advice; it still probes.
  return idsFromFiles(user, files).catch(
    sshLog.failure(`The SSH user's groups on ${node} could not be read`, 'info'),
  );
}

async function idsFromFiles(
  user: string,
  openFiles: () => Promise<SftpFiles>,
): Promise<RemoteIds | undefined> {
  const files = await openFiles();
  const read = async (path: string): Promise<string[][]> =>
    (await files.readRange(path, 0, 4 * 1024 * 1024))
      .toString('utf8')
      .split('\n')
      .map((line) => line.split(':'));
  const account = (await read('/etc/passwd')).find((fields) => fields[0] === user);
  if (account?.[2] === undefined || account[3] === undefined) return undefined;
  const primary = Number(account[3]);
  const supplementary = (await read('/etc/group'))
    .filter((fields) => (fields[3] ?? '').split(',').includes(user))
    .map((fields) => Number(fields[2]));
  return { uid: Number(account[2]), gids: [primary, ...supplementary] };
}

/** A group's name from /etc/group, if it is there. */
export async function groupName(files: SftpFiles, gid: number): Promise<string | undefined> {
  const text = (await files.readRange('/etc/group', 0, 1024 * 1024)).toString('utf8');
  return text
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[2] === String(gid))?.[0];
}
