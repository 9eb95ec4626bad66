/**
 * The `files` service and the `transfers` event over the FilesManager: every argument
 * checked and bounded before it reaches a node.
 */
import type { CallContext, EventSource, ServiceHandler } from '../../../../shared/contract';
import { AppError } from '../../../../shared/errors';
import {
  filesLimits,
  type FileTransfer,
  type FilesDownloadRequest,
  type FilesListing,
  type FilesListRequest,
  type FilesUploadRequest,
} from '../../../../shared/model';
import { requireNonNegativeInteger, requireObject, requireString } from '../../base/args';
import { toCallOptions } from '../nodes';
import type { FilesManager } from './manager';

function target(value: unknown): {
  nodeId: string;
  containerId: string;
  rest: Record<string, unknown>;
} {
  const request = requireObject(value, 'request');
  return {
    nodeId: requireString(request.nodeId, 'nodeId'),
    containerId: requireString(request.containerId, 'containerId', 256),
    rest: request,
  };
}

function parseUpload(value: unknown): FilesUploadRequest {
  const { nodeId, containerId, rest } = target(value);
  const files = rest.files;
  if (!Array.isArray(files) || files.length === 0) {
    throw new AppError({
      code: 'invalid-argument',
      message: 'files must be a list of at least one file.',
    });
  }
  if (files.length > filesLimits.maxUploadFiles) {
    throw new AppError({
      code: 'invalid-argument',
      message: `At most ${filesLimits.maxUploadFiles} files go in one upload.`,
    });
  }
  return {
    nodeId,
    containerId,
    directory: requireString(rest.directory, 'directory'),
    files: files.map((file: unknown, index) => {
      const entry = requireObject(file, `files[${index}]`);
      return {
        path: requireString(entry.path, `files[${index}].path`),
        size: requireNonNegativeInteger(entry.size, `files[${index}].size`),
      };
    }),
  };
}

export class FilesServiceImpl implements ServiceHandler<'files'> {
  constructor(private readonly files: FilesManager) {}

  async list(request: FilesListRequest, context?: CallContext): Promise<FilesListing> {
    const { nodeId, containerId, rest } = target(request);
    return await this.files.list(
      { nodeId, containerId, path: requireString(rest.path, 'path') },
      toCallOptions(context?.signal).signal,
    );
  }

  async download(request: FilesDownloadRequest, context?: CallContext): Promise<FileTransfer> {
    const { nodeId, containerId, rest } = target(request);
    return await this.files.download(
      { nodeId, containerId, path: requireString(rest.path, 'path') },
      toCallOptions(context?.signal).signal,
    );
  }

  async upload(request: FilesUploadRequest): Promise<FileTransfer> {
    // Not tied to the call's signal: the upload outlives the call that started it.
    return await this.files.upload(parseUpload(request));
  }

  async write(transferId: string, data: Uint8Array): Promise<void> {
    if (!(data instanceof Uint8Array)) {
      throw new AppError({ code: 'invalid-argument', message: 'data must be bytes.' });
    }
    if (data.byteLength > filesLimits.maxChunkBytes) {
      throw new AppError({
        code: 'invalid-argument',
        message: `One write carries at most ${filesLimits.maxChunkBytes} bytes.`,
      });
    }
    await this.files.write(requireString(transferId, 'transferId', 64), data);
  }

  async finish(transferId: string): Promise<FileTransfer> {
    return await this.files.finish(requireString(transferId, 'transferId', 64));
  }

  async cancel(transferId: string): Promise<void> {
    await this.files.cancel(requireString(transferId, 'transferId', 64));
  }
}

/** The `transfers` event: every transfer, whole on subscribe and on every change. */
export function transfersEventSource(files: FilesManager): EventSource['transfers'] {
  return (_argument, sink) => files.subscribe(sink);
}
