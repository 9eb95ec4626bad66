/**
 * Test doubles derived from the contract, so a test states only what it cares about and a
 * new method never means editing every fake: each method refuses with `unimplemented`
 * and each event stays silent unless the test overrides it.
 */
import { AppError } from '../errors';
import type { EventSource } from './events';
import type { ServiceHandlers } from './handlers';
import { eventNames, serviceMethods, serviceNames, type ServiceName } from './registry';

export type ServiceOverrides = { readonly [S in ServiceName]?: Partial<ServiceHandlers[S]> };

function refuse(service: string, method: string): () => Promise<never> {
  return () =>
    Promise.reject(
      new AppError({ code: 'unimplemented', message: `${service}.${method} is not faked.` }),
    );
}

export function fakeServices(overrides: ServiceOverrides = {}): ServiceHandlers {
  const services: Record<string, Record<string, unknown>> = {};
  for (const service of serviceNames) {
    const given: Readonly<Record<string, unknown>> = overrides[service] ?? {};
    services[service] = Object.fromEntries(
      Object.keys(serviceMethods[service]).map((method) => [
        method,
        given[method] ?? refuse(service, method),
      ]),
    );
  }
  return services as unknown as ServiceHandlers;
}

export function fakeEvents(overrides: Partial<EventSource> = {}): EventSource {
  const silent = () => ({ dispose() {} });
  return Object.fromEntries(
    eventNames.map((event) => [event, overrides[event] ?? silent]),
  ) as unknown as EventSource;
}
