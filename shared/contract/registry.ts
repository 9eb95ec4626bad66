import type { Events } from './events';
import type { Services } from './services';

export type ServiceName = keyof Services;
export type MethodName<S extends ServiceName> = keyof Services[S] & string;
export type EventName = keyof Events;

/** How many parameters a method declares, counting the optional ones. */
type Arity<F> = F extends (...args: infer A) => unknown ? Required<A>['length'] : never;

/**
 * The contract's methods as data: service → method → number of declared parameters.
 * Dispatchers refuse anything not listed here before it reaches a service, and use the
 * arity to place the call context after the declared arguments (optional ones included).
 * `satisfies` keeps this table and the interfaces in step: a method missing here, listed
 * but not declared, or with the wrong arity fails to compile.
 */
export const serviceMethods = {
  nodes: {
    discover: 0,
    list: 0,
    saveProfile: 1,
    removeProfile: 2,
    connect: 1,
    disconnect: 1,
    answerPrompt: 2,
  },
  resources: { podDetail: 2, containerDetail: 2, imageDetail: 2 },
  lifecycle: {
    stopContainer: 3,
    removeContainer: 2,
    stopPod: 3,
    removePod: 2,
    removeImage: 2,
    pullImage: 3,
    validateSpec: 1,
    runFromSpec: 2,
    cgroupDriver: 1,
  },
  terminals: {
    probeShell: 2,
    open: 1,
    write: 2,
    resize: 3,
    ack: 2,
    close: 1,
    findLeftover: 1,
    endLeftover: 2,
  },
  sessions: { kill: 1, clearHistory: 0 },
  forwards: {
    list: 0,
    create: 3,
    start: 1,
    stop: 1,
    restart: 1,
    update: 2,
    remove: 1,
    move: 2,
  },
  logs: { open: 1, openMerged: 1, lines: 4, search: 4, close: 1 },
  diagnostics: { recentLog: 1, report: 0 },
  debug: { start: 1, list: 1, keep: 3, remove: 2 },
  fanout: { preview: 1, start: 1, cancel: 1, exportJsonLines: 1, close: 1 },
  files: { list: 1, download: 1, upload: 1, write: 2, finish: 1, cancel: 1 },
  timeline: { clear: 0 },
} as const satisfies {
  readonly [S in ServiceName]: { readonly [M in MethodName<S>]: Arity<Services[S][M]> };
};

export const serviceNames = Object.keys(serviceMethods) as readonly ServiceName[];

/** The methods whose declared result is `void`: sent as one-way `notify` messages. */
type NotificationName<S extends ServiceName> = {
  [M in MethodName<S>]: Services[S][M] extends (...args: never[]) => infer R
    ? R extends Promise<unknown>
      ? never
      : M
    : never;
}[MethodName<S>];

export type NotifiedService = {
  [S in ServiceName]: NotificationName<S> extends never ? never : S;
}[ServiceName];

/**
 * The one-way methods (no result, no id): a pane's keystrokes, sizes and acknowledgements,
 * whose order the port keeps and whose failures come back as events. `satisfies` keeps the
 * list equal to the `void` methods of the interfaces.
 */
export const notificationMethods = {
  terminals: ['write', 'resize', 'ack'],
} as const satisfies { readonly [S in NotifiedService]: readonly NotificationName<S>[] };
type UnlistedNotification = {
  [S in NotifiedService]: Exclude<NotificationName<S>, (typeof notificationMethods)[S][number]>;
}[NotifiedService];
const allNotificationsListed: [UnlistedNotification] extends [never] ? true : UnlistedNotification =
  true;
void allNotificationsListed;

/** Whether `service.method` is a notification (else a call, or nothing). */
export function isNotification(service: string, method: string): boolean {
  if (!Object.hasOwn(notificationMethods, service)) return false;
  const methods: readonly string[] = notificationMethods[service as NotifiedService];
  return methods.includes(method);
}

export const eventNames = [
  'nodes',
  'resources',
  'prompts',
  'terminal',
  'sessions',
  'forwards',
  'logs',
  'stats',
  'fanout',
  'transfers',
  'timeline',
] as const satisfies readonly EventName[];
// Every declared event must be listed (the reverse is checked by `satisfies` above).
type UnlistedEvent = Exclude<EventName, (typeof eventNames)[number]>;
const allEventsListed: [UnlistedEvent] extends [never] ? true : UnlistedEvent = true;
void allEventsListed;

/** The declared arity of a method, or undefined when the contract has no such method. */
export function methodArity(service: string, method: string): number | undefined {
  if (!Object.hasOwn(serviceMethods, service)) return undefined;
  const methods: Readonly<Record<string, number>> = serviceMethods[service as ServiceName];
  return Object.hasOwn(methods, method) ? methods[method] : undefined;
}

export function isEventName(value: unknown): value is EventName {
  return typeof value === 'string' && (eventNames as readonly string[]).includes(value);
}
