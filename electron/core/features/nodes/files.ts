import { AppError } from '../../../../shared/errors';
import { localFiles, sshFiles, type NodeFiles } from '../../base/files';
import type { NodeManager } from './index';

/**
 * A connected node's files: this machine's for a local node, over its SSH connection's
 * SFTP session for an SSH node (logs are read there, log directories created there).
 */
export function nodeFiles(nodes: NodeManager, nodeId: string): NodeFiles {
  const ssh = nodes.sshSession(nodeId);
  if (ssh === undefined) return localFiles;
  const { openRemoteFile, followRemoteFile, makeRemoteDirectory } = ssh;
  if (
    openRemoteFile === undefined ||
    followRemoteFile === undefined ||
    makeRemoteDirectory === undefined
  ) {
    throw new AppError({
      code: 'unimplemented',
      message: `${nodes.nodeName(nodeId)} is reached in a way that can't reach its files.`,
    });
  }
  return sshFiles({
    openRemoteFile: openRemoteFile.bind(ssh),
    followRemoteFile: followRemoteFile.bind(ssh),
    makeRemoteDirectory: makeRemoteDirectory.bind(ssh),
  });
}
