import { containerKind } from './containers';
import { imageKind } from './images';
import type { ResourceKindViews } from './kind';
import { podKind } from './pods';

export type { ResourceKindView } from './kind';

/** Every resource kind the app shows, in sidebar order. */
export const resourceKindViews: ResourceKindViews = {
  pods: podKind,
  containers: containerKind,
  images: imageKind,
};
