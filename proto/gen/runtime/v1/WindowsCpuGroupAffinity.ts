// Original file: proto/runtime/v1/api.proto

import type { Long } from '@grpc/proto-loader';

export interface WindowsCpuGroupAffinity {
  'cpuMask'?: (number | string | Long);
  'cpuGroup'?: (number);
}

export interface WindowsCpuGroupAffinity__Output {
  'cpuMask': (string);
  'cpuGroup': (number);
}
