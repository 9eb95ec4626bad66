import type { ContainerEventResponse__Output } from '../../../../proto/gen';
import type { ContainerDetail, PodSandboxDetail } from '../../../../shared/model';
import { nanosToMillis, toContainerDetail, toPodSandboxDetail } from './mappers';

export type ContainerEventType = 'created' | 'started' | 'stopped' | 'deleted';

const eventTypes: Readonly<Record<string, ContainerEventType>> = {
  CONTAINER_CREATED_EVENT: 'created',
  CONTAINER_STARTED_EVENT: 'started',
  CONTAINER_STOPPED_EVENT: 'stopped',
  CONTAINER_DELETED_EVENT: 'deleted',
};

/** One lifecycle event from GetContainerEvents, with the statuses the runtime attached. */
export interface ContainerEvent {
  readonly containerId: string;
  readonly type: ContainerEventType;
  readonly createdAt: number;
  readonly pod?: PodSandboxDetail;
  readonly containers: readonly ContainerDetail[];
}

export function toContainerEvent(message: ContainerEventResponse__Output): ContainerEvent {
  const pod =
    message.podSandboxStatus === null
      ? undefined
      : toPodSandboxDetail({
          status: message.podSandboxStatus,
          info: {},
          containersStatuses: [],
          timestamp: '0',
        });
  return {
    containerId: message.containerId,
    type: eventTypes[message.containerEventType] ?? 'stopped',
    createdAt: nanosToMillis(message.createdAt),
    ...(pod !== undefined && { pod }),
    containers: message.containersStatuses.map((status) =>
      toContainerDetail({ status, info: {} }, pod?.id),
    ),
  };
}
