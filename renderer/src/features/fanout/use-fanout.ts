/**
 * The fanout controller of this window and a selector on its store, for every part of
 * the view (form, results, diff) to read the same state.
 */
import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { fanoutControllerOf, type FanoutController } from './fanout-controller';

export function useController(): FanoutController {
  return fanoutControllerOf(useModel());
}

export function useFanout<T>(
  select: (state: ReturnType<FanoutController['store']['getState']>) => T,
): T {
  return useStore(useController().store, select);
}
