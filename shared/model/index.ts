export type * from './common';
export type * from './container';
export type * from './image';
export type * from './pod';
export type * from './runtime';
export type * from './stats';
export { capabilityNames } from './runtime';
