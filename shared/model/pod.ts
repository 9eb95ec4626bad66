import type { EpochMillis, StringMap, VerboseInfo } from './common';

export type PodState = 'ready' | 'notready';

export interface PodSandbox {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly attempt: number;
  readonly state: PodState;
  readonly createdAt: EpochMillis;
  readonly labels: StringMap;
  readonly annotations: StringMap;
  readonly runtimeHandler: string;
}

export type NamespaceMode = 'pod' | 'container' | 'node' | 'target';

export interface PodSandboxDetail extends PodSandbox {
  readonly ip?: string;
  readonly additionalIps: readonly string[];
  readonly namespaces?: {
    readonly network: NamespaceMode;
    readonly pid: NamespaceMode;
    readonly ipc: NamespaceMode;
  };
  /** The runtime's verbose info (only when asked for). */
  readonly info: VerboseInfo;
}

export interface PodFilter {
  readonly id?: string;
  readonly state?: PodState;
  readonly labels?: StringMap;
}
