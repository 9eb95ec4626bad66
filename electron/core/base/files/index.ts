/** A node's files: this machine's, or a remote node's over its SSH connection (SFTP). */
export {
  localFiles,
  sshFiles,
  type NodeFiles,
  type ReadableFile,
  type SshFileAccess,
} from './files';
