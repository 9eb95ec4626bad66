import { useStore } from 'zustand';
import { useModel } from '../../app/context';
import { terminalsOf, type TerminalsFeature, type TerminalsState } from './store';

export function useTerminalsFeature(): TerminalsFeature {
  return terminalsOf(useModel());
}

/** A slice of the terminals state; select stable values (ids, objects from the state). */
export function useTerminals<T>(selector: (state: TerminalsState) => T): T {
  return useStore(useTerminalsFeature().store, selector);
}
