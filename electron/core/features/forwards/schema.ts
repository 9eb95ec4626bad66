/**
 * What a forward may look like when it arrives from a page or from forwards.json: the
 * contract's types are the caller's promise, these schemas are the check. The engine's own
 * validateSpec (ports in range, no local port twice) runs after the shape is known good.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { AppError } from '../../../../shared/errors';
import type { ForwardOptions, ForwardSpec } from '../../../../shared/model';
import { validateSpec } from './spec';

/** Kubernetes names and namespaces are at most 253 characters; sandbox ids are hex digests. */
const nameText = (what: string) =>
  z
    .string({ error: `The ${what} must be text.` })
    .trim()
    .min(1, `Enter the ${what}.`)
    .max(253, `The ${what} is too long.`);

const targetSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.literal('pod'),
      namespace: nameText('pod namespace'),
      name: nameText('pod name'),
    }),
    z.strictObject({
      kind: z.literal('labels'),
      labels: z
        .record(z.string().trim().min(1).max(317), z.string().max(63))
        .refine((labels) => Object.keys(labels).length > 0, 'Give at least one label.')
        .refine((labels) => Object.keys(labels).length <= 32, 'At most 32 labels.'),
      namespace: nameText('namespace').optional(),
    }),
    z.strictObject({
      kind: z.literal('sandbox'),
      podSandboxId: z.string().trim().min(1, 'Enter the sandbox id.').max(256),
    }),
  ],
  { error: 'A forward target is a pod (namespace and name), labels, or a sandbox id.' },
);

const portSchema = z.strictObject({
  localPort: z
    .int('A local port is a whole number.')
    .min(0, 'Local ports go from 1 to 65535 (0 picks a free one).')
    .max(65_535, 'Local ports go from 1 to 65535 (0 picks a free one).'),
  remotePort: z
    .int('A pod port is a whole number.')
    .min(1, 'Pod ports go from 1 to 65535.')
    .max(65_535, 'Pod ports go from 1 to 65535.'),
});

/** Listen addresses are IP literals: a host name could resolve to anything, later. */
const addressSchema = z
  .string({ error: 'A listen address must be text.' })
  .trim()
  .refine((address) => isIP(address) !== 0, {
    error: (issue) =>
      `"${String(issue.input)}" is not an IP address (e.g. 127.0.0.1, ::1 or 0.0.0.0).`,
  });

export const forwardSpecSchema = z.strictObject({
  target: targetSchema,
  ports: z
    .array(portSchema, { error: 'Give the ports as a list.' })
    .min(1, 'A forward needs at least one port.')
    .max(64, 'At most 64 ports per forward.'),
  addresses: z
    .array(addressSchema)
    .min(1, 'Give at least one listen address, or leave them out for loopback.')
    .max(8, 'At most 8 listen addresses.')
    .optional(),
  transport: z
    .enum(['auto', 'spdy', 'websocket'], { error: 'The transport is auto, spdy or websocket.' })
    .optional(),
});

export const forwardOptionsSchema = z.strictObject({
  /** An empty name goes back to the default description. */
  name: z
    .string({ error: 'The name must be text.' })
    .trim()
    .max(200, 'The name is too long.')
    .optional(),
  save: z.boolean({ error: 'save is true or false.' }).optional(),
  autoStart: z.boolean({ error: 'autoStart is true or false.' }).optional(),
  exposeBeyondLoopback: z.boolean({ error: 'exposeBeyondLoopback is true or false.' }).optional(),
});

function invalid(error: z.ZodError, what: string): AppError {
  return new AppError({
    code: 'invalid-argument',
    message: error.issues[0]?.message ?? `The ${what} is invalid.`,
    detail: z.prettifyError(error),
    hint: `Check the ${what}.`,
  });
}

/** A spec from the wire, checked and trimmed; an 'invalid-argument' AppError otherwise. */
export function parseForwardSpec(value: unknown): ForwardSpec {
  const parsed = forwardSpecSchema.safeParse(value);
  if (!parsed.success) throw invalid(parsed.error, 'forward');
  // Optional keys that were present but undefined are dropped: the spec is stored as JSON.
  const { addresses, transport, ...rest } = parsed.data;
  const spec: ForwardSpec = {
    ...rest,
    ...(addresses !== undefined && { addresses }),
    ...(transport !== undefined && { transport }),
  };
  validateSpec(spec);
  return spec;
}

export function parseForwardOptions(value: unknown): ForwardOptions {
  if (value === undefined || value === null) return {};
  const parsed = forwardOptionsSchema.safeParse(value);
  if (!parsed.success) throw invalid(parsed.error, 'forward options');
  const { name, save, autoStart, exposeBeyondLoopback } = parsed.data;
  return {
    ...(name !== undefined && { name }),
    ...(save !== undefined && { save }),
    ...(autoStart !== undefined && { autoStart }),
    ...(exposeBeyondLoopback !== undefined && { exposeBeyondLoopback }),
  };
}
