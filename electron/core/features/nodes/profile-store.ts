import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../../../shared/errors';
import type { NodeProfile, NodeProfileInput } from '../../../../shared/model';
import { parseEndpoint } from '../../base/cri';
import { hostNameHint, hostNameProblem, maxHostNameLength } from '../../base/ssh';
import { readJsonFile, writeJsonFileAtomic } from '../../base/config';

const idSchema = z.string().trim().min(1).max(200);
const nameSchema = z.string().trim().min(1, 'Give the node a name.').max(200);
const timeoutMsSchema = z
  .int()
  .min(100)
  .max(10 * 60_000)
  .optional();

const localProfileSchema = z.strictObject({
  id: idSchema,
  kind: z.literal('local'),
  name: nameSchema,
  endpoint: z.string().trim().min(1, 'Enter the runtime socket.'),
  imageEndpoint: z.string().trim().min(1).optional(),
  timeoutMs: timeoutMsSchema,
  autoConnect: z.boolean().optional(),
});

/** One word: no spaces, and no leading `-` that a tool could read as an option. */
const word = (what: string, max: number) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? `Enter the ${what}.` : `The ${what} must be text.`,
    })
    .trim()
    .min(1, `Enter the ${what}.`)
    .max(max, `The ${what} is too long.`)
    .refine((value) => !/\s/.test(value), `The ${what} cannot contain spaces.`)
    .refine((value) => !value.startsWith('-'), `The ${what} cannot start with "-".`);

const sshProfileSchema = z.strictObject({
  id: idSchema,
  kind: z.literal('ssh'),
  name: nameSchema,
  host: word('SSH host (an ~/.ssh/config alias, a host name or an address)', maxHostNameLength)
    // It ends up in known_hosts, which would read `a,b` or `*` as patterns.
    .refine((value) => hostNameProblem(value) === undefined, {
      error: (issue) =>
        `The SSH host ${hostNameProblem(String(issue.input).trim()) ?? 'is not a host name'}. ${hostNameHint}`,
    }),
  user: word('SSH user', 255).optional(),
  port: z
    .int('The SSH port is a whole number.')
    .min(1, 'The SSH port is between 1 and 65535.')
    .max(65_535, 'The SSH port is between 1 and 65535.')
    .optional(),
  identityFiles: z
    .array(z.string().trim().min(1, 'An identity file path is empty.').max(4096))
    .max(32, 'At most 32 identity files.')
    .optional(),
  identitiesOnly: z.boolean().optional(),
  proxyJump: z
    .string()
    .trim()
    .min(1, 'Enter the jump hosts, or leave ProxyJump out.')
    .max(1024)
    .refine(
      (value) => !/\s/.test(value.replace(/,\s+/g, ',')),
      'Write jump hosts as [user@]host[:port], separated by commas.',
    )
    .optional(),
  runtimeEndpoint: z.string().trim().min(1, 'Enter the runtime socket on the node.').optional(),
  keepaliveIntervalSeconds: z
    .int()
    .min(0, 'The keepalive interval is 0 (off) or more seconds.')
    .max(3600, 'The keepalive interval is at most 3600 seconds.')
    .optional(),
  keepaliveCountMax: z
    .int()
    .min(1, 'Allow at least 1 unanswered keepalive.')
    .max(100, 'At most 100 unanswered keepalives.')
    .optional(),
  connectTimeoutSeconds: z
    .int()
    .min(1, 'The connect timeout is at least 1 second.')
    .max(600, 'The connect timeout is at most 600 seconds.')
    .optional(),
  timeoutMs: timeoutMsSchema,
  autoConnect: z.boolean().optional(),
});

const kindError = 'A node profile is "local" or "ssh" (its kind).';

/** A stored profile. Exported for tests. */
export const profileSchema = z.discriminatedUnion('kind', [localProfileSchema, sshProfileSchema], {
  error: kindError,
});

/** A profile as submitted: the id is optional. Exported for tests. */
export const profileInputSchema = z.discriminatedUnion(
  'kind',
  [
    localProfileSchema.extend({ id: idSchema.optional() }),
    sshProfileSchema.extend({ id: idSchema.optional() }),
  ],
  { error: kindError },
);

const fileSchema = z.object({
  version: z.literal(1),
  profiles: z.array(z.unknown()),
});

/** The profiles file: `<configDir>/nodes.json`, `{ version: 1, profiles: [...] }`. */
export const profilesFileName = 'nodes.json';

/**
 * Saved node profiles, persisted as JSON in the config directory. A malformed entry is
 * skipped with a warning rather than losing every other profile.
 */
export class ProfileStore {
  private readonly path: string;
  private profiles: NodeProfile[] = [];
  /** The last change: the next one starts after it, whether or not it failed. */
  private writing: Promise<void> = Promise.resolve();

  constructor(configDir: string) {
    this.path = join(configDir, profilesFileName);
  }

  async load(): Promise<{ warnings: string[] }> {
    const warnings: string[] = [];
    const raw = await readJsonFile(this.path);
    if (raw === undefined) {
      this.profiles = [];
      return { warnings };
    }
    const file = fileSchema.safeParse(raw);
    if (!file.success) {
      throw new AppError({
        code: 'failed-precondition',
        message: `${this.path} is not a Porthole profiles file.`,
        detail: z.prettifyError(file.error),
        hint: 'Fix or move the file away; Porthole then starts with no saved nodes.',
      });
    }
    const profiles: NodeProfile[] = [];
    file.data.profiles.forEach((entry, index) => {
      const profile = profileSchema.safeParse(entry);
      if (profile.success) profiles.push(profile.data);
      else
        warnings.push(
          `${this.path}: profile ${index} was skipped (${z.prettifyError(profile.error)}).`,
        );
    });
    this.profiles = profiles;
    return { warnings };
  }

  list(): readonly NodeProfile[] {
    return this.profiles;
  }

  get(id: string): NodeProfile | undefined {
    return this.profiles.find((profile) => profile.id === id);
  }

  /** Validates and saves (adds or replaces by id); assigns an id when there is none. */
  async save(input: NodeProfileInput): Promise<NodeProfile> {
    const parsed = profileInputSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AppError({
        code: 'invalid-argument',
        message: issue?.message ?? 'The node profile is invalid.',
        detail: z.prettifyError(parsed.error),
        hint: 'Check the highlighted field.',
      });
    }
    // Refuse endpoints we could never dial now, not at connect time.
    if (parsed.data.kind === 'local') {
      parseEndpoint(parsed.data.endpoint);
      if (parsed.data.imageEndpoint !== undefined) parseEndpoint(parsed.data.imageEndpoint);
    } else if (parsed.data.runtimeEndpoint !== undefined) {
      parseEndpoint(parsed.data.runtimeEndpoint);
    }
    const profile: NodeProfile = {
      ...parsed.data,
      id: parsed.data.id ?? `profile-${randomUUID()}`,
    };
    await this.update((profiles) => {
      const index = profiles.findIndex((existing) => existing.id === profile.id);
      if (index === -1) return [...profiles, profile];
      return profiles.map((existing, i) => (i === index ? profile : existing));
    });
    return profile;
  }

  async remove(id: string): Promise<boolean> {
    let removed = false;
    await this.update((profiles) => {
      removed = profiles.some((profile) => profile.id === id);
      return profiles.filter((profile) => profile.id !== id);
    });
    return removed;
  }

  /**
   * Changes run one after another, each on the result of the previous one, so two quick
   * saves can't lose each other's profile; the list changes only once the file is written.
   */
  private update(change: (profiles: readonly NodeProfile[]) => NodeProfile[]): Promise<void> {
    const run = this.writing.then(async () => {
      const next = change(this.profiles);
      await writeJsonFileAtomic(this.path, { version: 1, profiles: next });
      this.profiles = next;
    });
    // The caller hears the failure through `run`; the chain only orders the writes.
    this.writing = run.catch(() => undefined);
    return run;
  }
}
