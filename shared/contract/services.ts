/**
 * The services the core offers the UI: the one source of truth from which the Electron
 * main handlers, the preload bridge, the browser-mode bridge and test fakes are derived.
 * Every method takes plain data and returns plain data (structured-clone and JSON safe);
 * every failure arrives as an AppError.
 */
import type {
  ContainerDetail,
  DiscoveredEndpoint,
  NodeProfile,
  NodeProfileInput,
  NodeStatus,
  PodSandboxDetail,
  Image,
  PromptAnswer,
} from '../model';

export interface DiscoveryReport {
  readonly endpoints: readonly DiscoveredEndpoint[];
  readonly warnings: readonly string[];
}

export interface NodesService {
  /** Probes this machine's runtimes in crictl's order. */
  discover(): Promise<DiscoveryReport>;
  /** Saved profiles and discovered nodes, with their connection state. */
  list(): Promise<readonly NodeStatus[]>;
  saveProfile(profile: NodeProfileInput): Promise<NodeProfile>;
  removeProfile(nodeId: string): Promise<void>;
  /**
   * Connects a node. For an SSH node this may wait on questions to the user (an unknown
   * host key, a key's passphrase), published on the `prompts` event; cancelling the call
   * or disconnecting the node withdraws them.
   */
  connect(nodeId: string): Promise<NodeStatus>;
  disconnect(nodeId: string): Promise<void>;
  /**
   * Answers an open prompt (see the `prompts` event). Rejects with `not-found` when the
   * prompt is no longer open (answered elsewhere, timed out, or its attempt ended), and
   * with `invalid-argument` when the answer is not of the prompt's kind.
   */
  answerPrompt(promptId: string, answer: PromptAnswer): Promise<void>;
}

export interface ResourcesService {
  podDetail(nodeId: string, podSandboxId: string): Promise<PodSandboxDetail>;
  containerDetail(nodeId: string, containerId: string): Promise<ContainerDetail>;
  imageDetail(nodeId: string, imageRef: string): Promise<Image>;
}

/** The result of running a pod (and optionally containers in it) from a spec. */
export interface RunResult {
  readonly podSandboxId: string;
  readonly containerIds: readonly string[];
}

/**
 * One problem in a spec. `path` names the field the way the user wrote it
 * (e.g. `containers[0].image.image`, or `` for the document itself); `line` and `column`
 * (1-based) point into the text when the parser knows where the field is.
 */
export interface SpecProblem {
  readonly path: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

export interface SpecValidation {
  readonly errors: readonly SpecProblem[];
}

export interface LifecycleService {
  stopContainer(nodeId: string, containerId: string, gracePeriodSeconds: number): Promise<void>;
  removeContainer(nodeId: string, containerId: string): Promise<void>;
  stopPod(nodeId: string, podSandboxId: string): Promise<void>;
  removePod(nodeId: string, podSandboxId: string): Promise<void>;
  removeImage(nodeId: string, imageRef: string): Promise<void>;
  pullImage(
    nodeId: string,
    image: string,
    auth?: { readonly username: string; readonly password: string },
  ): Promise<string>;
  /**
   * Checks a spec without running it, for the editor's inline errors. Never rejects for
   * a bad spec: the problems are the answer (an empty list means it would be accepted).
   */
  validateSpec(specText: string): Promise<SpecValidation>;
  /**
   * Runs a pod, and the containers it lists, from a spec the user wrote as YAML or JSON:
   * `{ pod: <PodSandboxConfig>, containers?: [<ContainerConfig>…], runtime_handler?: '' }`
   * in crictl's formats, keys snake_case (crictl's pod-config.json / container-config.json)
   * or camelCase; a bare pod config runs a pod alone. Images missing on the node are
   * pulled; if any step fails the pod is removed again. An invalid spec rejects with
   * `invalid-argument` (every problem in `detail`); use validateSpec for the field list.
   */
  runFromSpec(nodeId: string, specText: string): Promise<RunResult>;
}

/** Service name → interface. Adding a service here adds it everywhere. */
export interface Services {
  readonly nodes: NodesService;
  readonly resources: ResourcesService;
  readonly lifecycle: LifecycleService;
}
