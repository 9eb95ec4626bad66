/** Containers, pod sandboxes and images: inspect them, start, stop and remove them, run new ones. */
export { ResourcesServiceImpl } from './service';
export { LifecycleServiceImpl } from './lifecycle';
export { parseRunSpec, type RunPlan } from './spec';
