import * as grpc from '@grpc/grpc-js';
import { fromJSON, loadSync } from '@grpc/proto-loader';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultOutDir, diffTrees, generate, repoRoot } from '../scripts/proto/generate';
import { criDescriptor, criLoadOptions, type ProtoGrpcType } from './gen';

describe('proto/gen', () => {
  it('matches a fresh generation from proto/runtime/v1/api.proto', async () => {
    const freshDir = await mkdtemp(path.join(tmpdir(), 'porthole-proto-test-'));
    try {
      await generate(freshDir);
      const stale = await diffTrees(freshDir, defaultOutDir);
      expect(stale, 'proto/gen is stale; run `npm run proto:gen`').toEqual([]);
    } finally {
      await rm(freshDir, { recursive: true, force: true });
    }
  }, 60_000);
});

function loadCri(): ProtoGrpcType {
  const definition = fromJSON(criDescriptor, criLoadOptions);
  // loadPackageDefinition is untyped; ProtoGrpcType is its generated shape.
  return grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
}

describe('criDescriptor', () => {
  const cri = loadCri().runtime.v1;

  it('describes every RuntimeService rpc', () => {
    const methods = Object.keys(cri.RuntimeService.service);
    expect(methods).toHaveLength(37);
    expect(methods).toEqual(
      expect.arrayContaining([
        'Version',
        'Exec',
        'Attach',
        'PortForward',
        'ListContainers',
        'GetContainerEvents',
        'ListMetricDescriptors',
        'RuntimeConfig',
        'CheckpointPod',
        'UpdatePodSandboxResources',
      ]),
    );
  });

  it('describes every ImageService rpc', () => {
    expect(Object.keys(cri.ImageService.service)).toEqual([
      'ListImages',
      'StreamImages',
      'ImageStatus',
      'PullImage',
      'RemoveImage',
      'ImageFsInfo',
    ]);
  });

  it('marks the server-streaming rpcs', () => {
    const streaming = Object.entries(cri.RuntimeService.service)
      .filter(([, method]) => method.responseStream)
      .map(([name]) => name);
    expect(streaming).toEqual([
      'StreamPodSandboxes',
      'StreamContainers',
      'StreamContainerStats',
      'StreamPodSandboxStats',
      'GetContainerEvents',
      'StreamPodSandboxMetrics',
    ]);
    expect(cri.ImageService.service.StreamImages.responseStream).toBe(true);
  });

  it('defines the same types as loading the .proto file', () => {
    const fromDescriptor = fromJSON(criDescriptor, criLoadOptions);
    const fromProto = loadSync(path.join(repoRoot, 'proto/runtime/v1/api.proto'), criLoadOptions);
    expect(Object.keys(fromDescriptor).sort()).toEqual(Object.keys(fromProto).sort());
    for (const [name, definition] of Object.entries(fromProto)) {
      // Messages and enums carry their DescriptorProto in `type`.
      if ('type' in definition) {
        expect(fromDescriptor[name], name).toHaveProperty('type', definition.type);
      }
    }
  });

  it('decodes with the options the types were generated for', () => {
    // camelCase names, enums as strings and 64-bit integers as strings.
    const method = cri.RuntimeService.service.ContainerStatus;
    const wire = method.responseSerialize({
      status: { id: 'c1', state: 'CONTAINER_RUNNING', createdAt: '1700000000123456789' },
    });
    const decoded = method.responseDeserialize(wire);
    expect(decoded.status?.id).toBe('c1');
    expect(decoded.status?.state).toBe('CONTAINER_RUNNING');
    expect(decoded.status?.createdAt).toBe('1700000000123456789');
    // --defaults: unset scalars come back as their zero values.
    expect(decoded.status?.exitCode).toBe(0);
    expect(decoded.status?.stopSignal).toBe('SIGNAL_RUNTIME_DEFAULT');
  });
});
