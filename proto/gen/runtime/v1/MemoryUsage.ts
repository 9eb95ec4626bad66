// Original file: proto/runtime/v1/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { PsiStats as _runtime_v1_PsiStats, PsiStats__Output as _runtime_v1_PsiStats__Output } from '../../runtime/v1/PsiStats';
import type { Long } from '@grpc/proto-loader';

export interface MemoryUsage {
  'timestamp'?: (number | string | Long);
  'workingSetBytes'?: (_runtime_v1_UInt64Value | null);
  'availableBytes'?: (_runtime_v1_UInt64Value | null);
  'usageBytes'?: (_runtime_v1_UInt64Value | null);
  'rssBytes'?: (_runtime_v1_UInt64Value | null);
  'pageFaults'?: (_runtime_v1_UInt64Value | null);
  'majorPageFaults'?: (_runtime_v1_UInt64Value | null);
  'psi'?: (_runtime_v1_PsiStats | null);
}

export interface MemoryUsage__Output {
  'timestamp': (string);
  'workingSetBytes': (_runtime_v1_UInt64Value__Output | null);
  'availableBytes': (_runtime_v1_UInt64Value__Output | null);
  'usageBytes': (_runtime_v1_UInt64Value__Output | null);
  'rssBytes': (_runtime_v1_UInt64Value__Output | null);
  'pageFaults': (_runtime_v1_UInt64Value__Output | null);
  'majorPageFaults': (_runtime_v1_UInt64Value__Output | null);
  'psi': (_runtime_v1_PsiStats__Output | null);
}
