/**
 * The connection's SFTP subsystem, opened on first use and shared: a closed one (sftp-server
 * exited) or one that failed to open is opened again on the next use, and a dropped
 * connection forgets it.
 */
import { AppError } from '../../../../shared/errors';
import { SftpFiles } from './remote-files';
import type { SFTPWrapper, Ssh2Client } from './ssh2';

export class LazySftp {
  private opening: Promise<SftpFiles> | undefined;

  constructor(
    private readonly node: string,
    /** The node's client, or the AppError saying why there is none. */
    private readonly client: () => Ssh2Client,
  ) {}

  files(): Promise<SftpFiles> {
    if (this.opening !== undefined) return this.opening;
    const client = this.client();
    const opened = new Promise<SftpFiles>((resolve, reject) =>
      client.sftp((error, sftp: SFTPWrapper) => {
        if (error) {
          reject(
            new AppError({
              code: 'unavailable',
              message: `The SFTP subsystem on ${this.node} could not be started.`,
              detail: error.message,
              hint: 'Porthole reads log files over SFTP: the node\'s sshd needs a "Subsystem sftp" line.',
            }),
          );
          return;
        }
        sftp.on('error', () => {});
        // A closed SFTP subsystem (sftp-server exited) is reopened on the next use.
        sftp.once('close', () => {
          if (this.opening === opened) this.opening = undefined;
        });
        resolve(new SftpFiles(sftp, this.node));
      }),
    );
    this.opening = opened;
    // The caller hears the failure through `opened`; this only forgets the failed one.
    opened.catch(() => {
      if (this.opening === opened) this.opening = undefined;
    });
    return opened;
  }

  /** The connection dropped: the next use opens a new one. */
  forget(): void {
    this.opening = undefined;
  }
}
