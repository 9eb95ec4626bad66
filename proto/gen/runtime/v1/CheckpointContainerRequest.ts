// Original file: proto/runtime/v1/api.proto

import type { Long } from '@grpc/proto-loader';

export interface CheckpointContainerRequest {
  'containerId'?: (string);
  'location'?: (string);
  'timeout'?: (number | string | Long);
}

export interface CheckpointContainerRequest__Output {
  'containerId': (string);
  'location': (string);
  'timeout': (string);
}
