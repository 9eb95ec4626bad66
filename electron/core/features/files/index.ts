/** A container's files over the CRI: list, download and upload by tar (see manager.ts). */
export { downloadPathPrefix, type DownloadBody } from './download';
export { FilesManager, type FilesManagerOptions } from './manager';
export { FilesServiceImpl, transfersEventSource } from './service';
