import { useSyncExternalStore } from 'react';
import { Emitter } from '../../../shared/event';

/**
 * One shared ticking clock for every live age in the UI: a single timer however many rows
 * show an age, and none at all while nothing is on screen.
 */
const ticks = new Emitter<void>();
let now = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  const subscription = ticks.event(listener);
  if (timer === undefined) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      ticks.fire();
    }, 1000);
  }
  return () => {
    subscription.dispose();
    if (!ticks.hasListeners && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

const snapshot = (): number => now;

/** The current time, refreshed every second while the component is mounted. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}
