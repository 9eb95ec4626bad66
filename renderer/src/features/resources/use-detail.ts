import { useEffect, useState } from 'react';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { ContainerDetail, Image, PodSandboxDetail } from '../../../../shared/model';
import { useModel } from '../../app/context';
import type { AppModel } from '../../app/model';
import type { ItemsByKind, ResourceKind } from './model';

export interface DetailsByKind {
  readonly pods: PodSandboxDetail;
  readonly containers: ContainerDetail;
  readonly images: Image;
}

export type DetailState<K extends ResourceKind> =
  | { readonly state: 'loading'; readonly previous?: DetailsByKind[K] }
  | { readonly state: 'loaded'; readonly detail: DetailsByKind[K]; readonly refreshing: boolean }
  | {
      readonly state: 'failed';
      readonly error: AppErrorData;
      readonly previous?: DetailsByKind[K];
    };

function fetchDetail<K extends ResourceKind>(
  model: AppModel,
  kind: K,
  item: ItemsByKind[K],
  signal: AbortSignal,
): Promise<DetailsByKind[K]> {
  const resources = model.client.withSignal(signal).resources;
  switch (kind) {
    case 'pods':
      return resources.podDetail(item.nodeId, item.id) as Promise<DetailsByKind[K]>;
    case 'containers':
      return resources.containerDetail(item.nodeId, item.id) as Promise<DetailsByKind[K]>;
    case 'images':
      return resources.imageDetail(item.nodeId, item.id) as Promise<DetailsByKind[K]>;
  }
  throw new Error(`unknown resource kind ${String(kind)}`);
}

/**
 * The runtime's full status of one resource. Fetched again whenever its list entry
 * changes (a live update), keeping the previous detail on screen meanwhile: no flicker.
 */
export function useResourceDetail<K extends ResourceKind>(
  kind: K,
  item: ItemsByKind[K] | undefined,
): DetailState<K> | undefined {
  const model = useModel();
  const [state, setState] = useState<{ key: string; value: DetailState<K> } | undefined>();
  const key = item === undefined ? undefined : `${kind}:${item.nodeId}:${item.id}`;

  useEffect(() => {
    if (item === undefined || key === undefined) return;
    const controller = new AbortController();
    setState((current) => {
      const previous =
        current?.key === key
          ? current.value.state === 'loaded'
            ? current.value.detail
            : current.value.previous
          : undefined;
      return {
        key,
        value:
          previous === undefined
            ? { state: 'loading' }
            : { state: 'loaded', detail: previous, refreshing: true },
      };
    });
    fetchDetail(model, kind, item, controller.signal).then(
      (detail) => {
        if (!controller.signal.aborted) {
          setState({ key, value: { state: 'loaded', detail, refreshing: false } });
        }
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((current) => ({
          key,
          value: {
            state: 'failed',
            error: toAppErrorData(error),
            ...(current?.key === key && current.value.state === 'loaded'
              ? { previous: current.value.detail }
              : {}),
          },
        }));
      },
    );
    return () => controller.abort();
  }, [model, kind, item, key]);

  return state !== undefined && state.key === key
    ? state.value
    : item === undefined
      ? undefined
      : { state: 'loading' };
}
