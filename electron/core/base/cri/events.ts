import type { ContainerEventResponse__Output } from '../../../../proto/gen';
import type { ContainerDetail, PodSandboxDetail } from '../../../../shared/model';
import type { Disposable } from '../../../../shared/lifecycle';
import type { CriCalls } from './calls';
import type { StreamObserver } from './channel';
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

/**
 * Follows GetContainerEvents, recording what the stream proves in the capability tracker:
 * answered, unimplemented (the observer gets the error), or disabled (it ended with OK
 * before any event; the observer hears `complete`).
 */
export function watchContainerEvents(
  calls: Pick<CriCalls, 'runtimeStream' | 'capabilities'>,
  observer: StreamObserver<ContainerEvent>,
): Disposable {
  let answered = false;
  return calls.runtimeStream(
    'GetContainerEvents',
    {},
    {
      next: (message) => {
        if (!answered) {
          answered = true;
          calls.capabilities.observe('GetContainerEvents', 'answered');
        }
        observer.next(toContainerEvent(message));
      },
      error: (error) => {
        if (error.code === 'unimplemented')
          calls.capabilities.observe('GetContainerEvents', 'unimplemented');
        observer.error(error);
      },
      complete: () => {
        if (!answered) calls.capabilities.observe('GetContainerEvents', 'disabled');
        observer.complete();
      },
    },
  );
}
