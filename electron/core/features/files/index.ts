/** A container's files over the CRI: list, download and upload by tar (see manager.ts). */
export {
  FilesManager,
  downloadPathPrefix,
  type DownloadBody,
  type FilesManagerOptions,
} from './manager';
export { FilesServiceImpl, transfersEventSource } from './service';
