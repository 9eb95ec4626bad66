import { z } from 'zod';
import {
  MountPropagation,
  NamespaceMode,
  Protocol,
  Signal,
  SupplementalGroupsPolicy,
  type ContainerConfig,
  type PodSandboxConfig,
} from '../../../../../proto/gen';

/**
 * The run spec, as zod schemas: `{ pod: <PodSandboxConfig>, containers: [<ContainerConfig>…] }`
 * in crictl's formats. Every object accepts its keys in snake_case (crictl's
 * pod-config.json / container-config.json) or camelCase, and refuses keys it does not
 * know, so a typo is an error instead of a silently ignored field. Free-form maps
 * (labels, annotations, sysctls, unified) keep their keys exactly as written.
 */

/** `log_directory` → `logDirectory`, `CDI_devices` → `CDIDevices`. */
export function camelKey(key: string): string {
  return key.replace(/_([a-zA-Z0-9])/g, (_match, next: string) => next.toUpperCase());
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A strict object whose own keys may be written snake_case or camelCase. */
function obj<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.preprocess((input, ctx) => {
    if (!isPlainObject(input)) return input;
    const out: Record<string, unknown> = {};
    const writtenAs = new Map<string, string>();
    for (const [key, value] of Object.entries(input)) {
      const camel = camelKey(key);
      const earlier = writtenAs.get(camel);
      if (earlier !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `"${key}" and "${earlier}" are the same field; keep one.`,
          path: [key],
          input,
        });
        continue;
      }
      writtenAs.set(camel, key);
      out[camel] = value;
    }
    return out;
  }, z.strictObject(shape));
}

const str = z.string();
const bool = z.boolean();
const strings = z.array(z.string());
const stringMap = z.record(z.string(), z.string({ error: 'Map values must be strings.' }));

/** uint32/int32 fields. */
const uint32 = z.int().min(0).max(0xffffffff);
const port = z.int().min(0).max(65535);

/** int64 fields: numbers or numeric strings (YAML and JSON lose precision past 2^53). */
const int64 = z
  .union([z.int(), z.string().regex(/^-?\d+$/, 'Expected an integer.')])
  .transform((value) => String(value));

/**
 * A protobuf enum, by name or by number (crictl's JSON files use numbers). The wire form
 * is the name, as the CRI client sends enums.
 */
function protoEnum<const T extends Readonly<Record<string, string>>>(values: T) {
  const names = Object.keys(values) as (keyof T & string)[];
  return z
    .union([
      z.enum(names as [keyof T & string, ...(keyof T & string)[]]),
      z
        .int()
        .min(0)
        .max(names.length - 1),
    ])
    .transform((value) => (typeof value === 'number' ? (names[value] as keyof T & string) : value));
}

const int64Value = obj({ value: int64 });
const securityProfile = obj({
  profileType: protoEnum({
    RuntimeDefault: 'RuntimeDefault',
    Unconfined: 'Unconfined',
    Localhost: 'Localhost',
  }).optional(),
  localhostRef: str.optional(),
});
const selinuxOption = obj({
  user: str.optional(),
  role: str.optional(),
  type: str.optional(),
  level: str.optional(),
});
const idMapping = obj({
  hostId: uint32.optional(),
  containerId: uint32.optional(),
  length: uint32.optional(),
});
const namespaceOption = obj({
  network: protoEnum(NamespaceMode).optional(),
  pid: protoEnum(NamespaceMode).optional(),
  ipc: protoEnum(NamespaceMode).optional(),
  targetId: str.optional(),
  usernsOptions: obj({
    mode: protoEnum(NamespaceMode).optional(),
    uids: z.array(idMapping).optional(),
    gids: z.array(idMapping).optional(),
  }).optional(),
});
const linuxResources = obj({
  cpuPeriod: int64.optional(),
  cpuQuota: int64.optional(),
  cpuShares: int64.optional(),
  memoryLimitInBytes: int64.optional(),
  oomScoreAdj: int64.optional(),
  cpusetCpus: str.optional(),
  cpusetMems: str.optional(),
  hugepageLimits: z.array(obj({ pageSize: str.optional(), limit: int64.optional() })).optional(),
  unified: stringMap.optional(),
  memorySwapLimitInBytes: int64.optional(),
});
const imageSpec = obj({
  image: z.string().trim().min(1, 'Name the image, e.g. busybox:latest.'),
  annotations: stringMap.optional(),
  userSpecifiedImage: str.optional(),
  runtimeHandler: str.optional(),
});

export const podSchema = obj({
  metadata: obj({
    name: z.string().trim().min(1, 'The pod needs a name.'),
    namespace: str.optional(),
    uid: str.optional(),
    attempt: uint32.optional(),
  }),
  hostname: str.optional(),
  logDirectory: str.optional(),
  dnsConfig: obj({
    servers: strings.optional(),
    searches: strings.optional(),
    options: strings.optional(),
  }).optional(),
  portMappings: z
    .array(
      obj({
        protocol: protoEnum(Protocol).optional(),
        containerPort: port.optional(),
        hostPort: port.optional(),
        hostIp: str.optional(),
      }),
    )
    .optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  linux: obj({
    cgroupParent: str.optional(),
    securityContext: obj({
      namespaceOptions: namespaceOption.optional(),
      selinuxOptions: selinuxOption.optional(),
      runAsUser: int64Value.optional(),
      runAsGroup: int64Value.optional(),
      readonlyRootfs: bool.optional(),
      supplementalGroups: z.array(int64).optional(),
      privileged: bool.optional(),
      seccompProfilePath: str.optional(),
      seccomp: securityProfile.optional(),
      apparmor: securityProfile.optional(),
      supplementalGroupsPolicy: protoEnum(SupplementalGroupsPolicy).optional(),
    }).optional(),
    sysctls: stringMap.optional(),
    overhead: linuxResources.optional(),
    resources: linuxResources.optional(),
  }).optional(),
});

export const containerSchema = obj({
  metadata: obj({
    name: z.string().trim().min(1, 'The container needs a name.'),
    attempt: uint32.optional(),
  }),
  image: imageSpec,
  command: strings.optional(),
  args: strings.optional(),
  workingDir: str.optional(),
  envs: z
    .array(
      obj({
        key: z.string().min(1, 'An environment variable needs a key.'),
        value: z.union([z.string(), z.number(), z.boolean()]).transform(String).optional(),
      }),
    )
    .optional(),
  mounts: z
    .array(
      obj({
        containerPath: z.string().min(1, 'A mount needs a container_path.'),
        hostPath: str.optional(),
        readonly: bool.optional(),
        selinuxRelabel: bool.optional(),
        propagation: protoEnum(MountPropagation).optional(),
        uidMappings: z.array(idMapping).optional(),
        gidMappings: z.array(idMapping).optional(),
        recursiveReadOnly: bool.optional(),
        image: imageSpec.optional(),
        imageSubPath: str.optional(),
        mountOptions: strings.optional(),
      }),
    )
    .optional(),
  devices: z
    .array(
      obj({ containerPath: str.optional(), hostPath: str.optional(), permissions: str.optional() }),
    )
    .optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  logPath: str.optional(),
  stdin: bool.optional(),
  stdinOnce: bool.optional(),
  tty: bool.optional(),
  linux: obj({
    resources: linuxResources.optional(),
    securityContext: obj({
      capabilities: obj({
        addCapabilities: strings.optional(),
        dropCapabilities: strings.optional(),
        addAmbientCapabilities: strings.optional(),
      }).optional(),
      privileged: bool.optional(),
      namespaceOptions: namespaceOption.optional(),
      selinuxOptions: selinuxOption.optional(),
      runAsUser: int64Value.optional(),
      runAsGroup: int64Value.optional(),
      runAsUsername: str.optional(),
      readonlyRootfs: bool.optional(),
      supplementalGroups: z.array(int64).optional(),
      apparmorProfile: str.optional(),
      seccompProfilePath: str.optional(),
      noNewPrivs: bool.optional(),
      maskedPaths: strings.optional(),
      readonlyPaths: strings.optional(),
      seccomp: securityProfile.optional(),
      apparmor: securityProfile.optional(),
      supplementalGroupsPolicy: protoEnum(SupplementalGroupsPolicy).optional(),
    }).optional(),
  }).optional(),
  CDIDevices: z.array(obj({ name: str.optional() })).optional(),
  stopSignal: protoEnum(Signal).optional(),
});

export const runSpecSchema = obj({
  pod: podSchema,
  containers: z.array(containerSchema).optional(),
  /** The runtime handler (RuntimeClass) for the pod; the runtime's default when empty. */
  runtimeHandler: str.optional(),
});

export type ParsedPod = z.output<typeof podSchema>;
export type ParsedContainer = z.output<typeof containerSchema>;
export type ParsedRunSpec = z.output<typeof runSpecSchema>;

// The parsed forms must be valid CRI messages (env values aside: converted on the way).
type Assignable<A, B> = [A] extends [B] ? true : false;
const podFits: Assignable<ParsedPod, PodSandboxConfig> = true;
const containerFits: Assignable<
  Omit<ParsedContainer, 'envs'>,
  Omit<ContainerConfig, 'envs'>
> = true;
void podFits;
void containerFits;
