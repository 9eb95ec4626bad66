/**
 * A model's React tree in a test (happy-dom): mounted inside act() into an element of the
 * document, and torn down with the model. The one way the renderer's view tests render.
 */
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { ModelProvider } from './context';
import type { AppModel } from './model';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean | undefined;
}
// React expects updates inside act() only where it is told it runs under a test.
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

export interface MountedView {
  readonly element: HTMLElement;
  /** Unmounts the tree, disposes the model and its client, removes the element. */
  readonly unmount: () => void;
}

export async function mountView(
  model: AppModel,
  view: ReactNode,
  size?: { readonly width: string; readonly height: string },
): Promise<MountedView> {
  const element = document.createElement('div');
  if (size !== undefined) Object.assign(element.style, size);
  document.body.append(element);
  let root: Root | undefined;
  await act(async () => {
    root = createRoot(element);
    root.render(<ModelProvider model={model}>{view}</ModelProvider>);
    await Promise.resolve();
  });
  return {
    element,
    unmount: () => {
      act(() => root?.unmount());
      model.dispose();
      model.client.dispose();
      element.remove();
    },
  };
}
