// Original file: proto/runtime/v1/api.proto

import type { RuntimeConfig as _runtime_v1_RuntimeConfig, RuntimeConfig__Output as _runtime_v1_RuntimeConfig__Output } from '../../runtime/v1/RuntimeConfig';

export interface UpdateRuntimeConfigRequest {
  'runtimeConfig'?: (_runtime_v1_RuntimeConfig | null);
}

export interface UpdateRuntimeConfigRequest__Output {
  'runtimeConfig': (_runtime_v1_RuntimeConfig__Output | null);
}
