// Original file: proto/runtime/v1/api.proto

import type { Protocol as _runtime_v1_Protocol, Protocol__Output as _runtime_v1_Protocol__Output } from '../../runtime/v1/Protocol';

export interface PortMapping {
  'protocol'?: (_runtime_v1_Protocol);
  'containerPort'?: (number);
  'hostPort'?: (number);
  'hostIp'?: (string);
}

export interface PortMapping__Output {
  'protocol': (_runtime_v1_Protocol__Output);
  'containerPort': (number);
  'hostPort': (number);
  'hostIp': (string);
}
