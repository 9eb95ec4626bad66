import type { EpochMillis, StringMap, VerboseInfo } from './common';

export type ContainerState = 'created' | 'running' | 'exited' | 'unknown';

export interface Container {
  readonly id: string;
  readonly podSandboxId: string;
  readonly name: string;
  readonly attempt: number;
  /** The image as the user asked for it (a tag or digest reference). */
  readonly image: string;
  /** The image the runtime resolved it to (usually `sha256:…`). */
  readonly imageRef: string;
  readonly state: ContainerState;
  readonly createdAt: EpochMillis;
  readonly labels: StringMap;
  readonly annotations: StringMap;
}

export type MountPropagation = 'private' | 'host-to-container' | 'bidirectional';

export interface Mount {
  readonly containerPath: string;
  readonly hostPath: string;
  readonly readonly: boolean;
  readonly propagation: MountPropagation;
}

export interface ContainerDetail extends Container {
  readonly startedAt?: EpochMillis;
  readonly finishedAt?: EpochMillis;
  readonly exitCode?: number;
  readonly reason: string;
  readonly message: string;
  readonly mounts: readonly Mount[];
  readonly logPath: string;
  /** Whether the container has a TTY; from the verbose info when the runtime reports it. */
  readonly tty?: boolean;
  readonly info: VerboseInfo;
}

/** What a container's status says of its run: what a runtime's container event carries too. */
export type ContainerOutcome = Pick<
  ContainerDetail,
  'state' | 'startedAt' | 'finishedAt' | 'exitCode' | 'reason' | 'message'
>;

export interface ContainerFilter {
  readonly id?: string;
  readonly state?: ContainerState;
  readonly podSandboxId?: string;
  readonly labels?: StringMap;
}

/** The result of a one-shot command (CRI ExecSync). Output is raw bytes: it may not be UTF-8. */
export interface ExecSyncResult {
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
  readonly exitCode: number;
}
