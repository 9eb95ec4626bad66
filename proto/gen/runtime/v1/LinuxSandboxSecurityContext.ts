// Original file: proto/runtime/v1/api.proto

import type { NamespaceOption as _runtime_v1_NamespaceOption, NamespaceOption__Output as _runtime_v1_NamespaceOption__Output } from '../../runtime/v1/NamespaceOption';
import type { SELinuxOption as _runtime_v1_SELinuxOption, SELinuxOption__Output as _runtime_v1_SELinuxOption__Output } from '../../runtime/v1/SELinuxOption';
import type { Int64Value as _runtime_v1_Int64Value, Int64Value__Output as _runtime_v1_Int64Value__Output } from '../../runtime/v1/Int64Value';
import type { SecurityProfile as _runtime_v1_SecurityProfile, SecurityProfile__Output as _runtime_v1_SecurityProfile__Output } from '../../runtime/v1/SecurityProfile';
import type { SupplementalGroupsPolicy as _runtime_v1_SupplementalGroupsPolicy, SupplementalGroupsPolicy__Output as _runtime_v1_SupplementalGroupsPolicy__Output } from '../../runtime/v1/SupplementalGroupsPolicy';
import type { Long } from '@grpc/proto-loader';

export interface LinuxSandboxSecurityContext {
  'namespaceOptions'?: (_runtime_v1_NamespaceOption | null);
  'selinuxOptions'?: (_runtime_v1_SELinuxOption | null);
  'runAsUser'?: (_runtime_v1_Int64Value | null);
  'readonlyRootfs'?: (boolean);
  'supplementalGroups'?: (number | string | Long)[];
  'privileged'?: (boolean);
  'seccompProfilePath'?: (string);
  'runAsGroup'?: (_runtime_v1_Int64Value | null);
  'seccomp'?: (_runtime_v1_SecurityProfile | null);
  'apparmor'?: (_runtime_v1_SecurityProfile | null);
  'supplementalGroupsPolicy'?: (_runtime_v1_SupplementalGroupsPolicy);
}

export interface LinuxSandboxSecurityContext__Output {
  'namespaceOptions': (_runtime_v1_NamespaceOption__Output | null);
  'selinuxOptions': (_runtime_v1_SELinuxOption__Output | null);
  'runAsUser': (_runtime_v1_Int64Value__Output | null);
  'readonlyRootfs': (boolean);
  'supplementalGroups': (string)[];
  'privileged': (boolean);
  'seccompProfilePath': (string);
  'runAsGroup': (_runtime_v1_Int64Value__Output | null);
  'seccomp': (_runtime_v1_SecurityProfile__Output | null);
  'apparmor': (_runtime_v1_SecurityProfile__Output | null);
  'supplementalGroupsPolicy': (_runtime_v1_SupplementalGroupsPolicy__Output);
}
