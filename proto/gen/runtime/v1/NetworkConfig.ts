// Original file: proto/runtime/v1/api.proto


export interface NetworkConfig {
  'podCidr'?: (string);
}

export interface NetworkConfig__Output {
  'podCidr': (string);
}
