// Original file: proto/runtime/v1/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';

export interface WindowsNetworkInterfaceUsage {
  'name'?: (string);
  'rxBytes'?: (_runtime_v1_UInt64Value | null);
  'rxPacketsDropped'?: (_runtime_v1_UInt64Value | null);
  'txBytes'?: (_runtime_v1_UInt64Value | null);
  'txPacketsDropped'?: (_runtime_v1_UInt64Value | null);
}

export interface WindowsNetworkInterfaceUsage__Output {
  'name': (string);
  'rxBytes': (_runtime_v1_UInt64Value__Output | null);
  'rxPacketsDropped': (_runtime_v1_UInt64Value__Output | null);
  'txBytes': (_runtime_v1_UInt64Value__Output | null);
  'txPacketsDropped': (_runtime_v1_UInt64Value__Output | null);
}
