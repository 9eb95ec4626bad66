/**
 * The services the core offers the UI: the one source of truth from which the Electron
 * main handlers, the preload bridge, the browser-mode bridge and test fakes are derived.
 * Every method takes plain data and returns plain data (structured-clone and JSON safe);
 * every failure arrives as an AppError.
 */
import type {
  AppLogTail,
  ContainerDetail,
  DebugContainer,
  DebugStartRequest,
  DebugStarted,
  CgroupDriverInfo,
  DiagnosticsReport,
  DiscoveredEndpoint,
  DiscoverySource,
  FanoutRequest,
  FanoutRow,
  FanoutRunInfo,
  FileTransfer,
  FilesDownloadRequest,
  FilesListRequest,
  FilesListing,
  FilesUploadRequest,
  ForwardEntry,
  ForwardOptions,
  ForwardSpec,
  Image,
  LogInfo,
  LogLine,
  LogOpenRequest,
  MergedLogInfo,
  MergedLogOpenRequest,
  LogSearchQuery,
  LogSearchResult,
  LeftoverProcess,
  LeftoverRef,
  LogView,
  NodeProfile,
  NodeProfileInput,
  NodeStatus,
  PodSandboxDetail,
  PromptAnswer,
  TerminalInfo,
  TerminalOpenRequest,
} from '../model';

export interface DiscoveryReport {
  /** Every socket probed (absent ones too), in the order tried. */
  readonly endpoints: readonly DiscoveredEndpoint[];
  readonly warnings: readonly string[];
  /** The variables and files that were read for endpoints, and what each gave. */
  readonly sources: readonly DiscoverySource[];
}

/** What happens to a removed node's port forwards. */
export interface RemoveNodeOptions {
  /**
   * `remove`: they go too (saved ones are forgotten). `keep` (the default): they stay,
   * stopped, and can be moved to another node (`forwards.move`).
   */
  readonly forwards?: 'remove' | 'keep';
}

export interface NodesService {
  /** Probes this machine's runtimes in crictl's order. */
  discover(): Promise<DiscoveryReport>;
  /** Saved profiles and discovered nodes, with their connection state. */
  list(): Promise<readonly NodeStatus[]>;
  saveProfile(profile: NodeProfileInput): Promise<NodeProfile>;
  removeProfile(nodeId: string, options?: RemoveNodeOptions): Promise<void>;
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
  /**
   * Stops the pod's running containers, each with the grace period (SIGTERM, then SIGKILL
   * when it runs out), then the pod sandbox itself.
   */
  stopPod(nodeId: string, podSandboxId: string, gracePeriodSeconds: number): Promise<void>;
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
   * pulled; if any step fails the pod is removed again, and the rejection's `step` says
   * which one (a RunStep). An invalid spec rejects with `invalid-argument` (every problem
   * in `detail`); use validateSpec for the field list.
   */
  runFromSpec(nodeId: string, specText: string): Promise<RunResult>;
  /**
   * The node's cgroup driver, from RuntimeConfig where the runtime has it: what a pod's
   * cgroup parent must look like there (the Run dialog's template sets one, so the pod's
   * own stats can be read).
   */
  cgroupDriver(nodeId: string): Promise<CgroupDriverInfo>;
}

/**
 * The steps of a run from a spec, in order: the pod, then for the container at each index
 * (0-based, as listed) pulling its image (when the node lacks it), creating, starting.
 */
export type RunStep = 'pod' | `pull:${number}` | `create:${number}` | `start:${number}`;

/**
 * Exec and attach terminals. Output arrives on the `terminal` event and must be
 * acknowledged (`ack`) once drawn, in whole batches (see `terminalFlow`); a terminal lives until `close`, its process ends or its
 * transport drops, whichever is first, and never because a view was closed.
 */
export interface TerminalsService {
  /**
   * The container's shell for exec: `bash`, then `ash`, then `sh`, probed with ExecSync.
   * Rejects with `not-found` when it has none of them (a distroless image).
   */
  probeShell(nodeId: string, containerId: string): Promise<readonly string[]>;
  /**
   * Opens the stream and resolves once it is up; output waits for a subscriber. An exec
   * without a command runs the container's shell, probed as `probeShell` does, in the
   * same call (`TerminalInfo.command` says which).
   */
  open(request: TerminalOpenRequest): Promise<TerminalInfo>;
  /**
   * Sends input: the bytes as the process reads them. A notification (see `Notifications`):
   * a failure arrives as a `notice` on the `terminal` event.
   */
  write(terminalId: string, data: Uint8Array): void;
  /** Sends a window size; ignored without a tty. A notification. */
  resize(terminalId: string, cols: number, rows: number): void;
  /**
   * Acknowledges output bytes the pane has drawn (flow control, see `terminalFlow`). A
   * notification.
   */
  ack(terminalId: string, bytes: number): void;
  /** Ends the session (the process keeps running for attach). */
  close(terminalId: string): Promise<void>;
  /**
   * After an exec session ended with `mayStillRun`: its process if it still runs in the
   * container (found with ExecSync reading /proc), or undefined when it is gone. Rejects
   * when the node is not connected, or the container has no `sh` to look with.
   */
  findLeftover(ref: LeftoverRef): Promise<LeftoverProcess | undefined>;
  /**
   * Ends a process findLeftover found: SIGTERM, then SIGKILL if it lingers. `gone`: it had
   * ended already (its pid, if taken, now belongs to another process, which is left alone).
   */
  endLeftover(
    ref: LeftoverRef,
    process: LeftoverProcess,
  ): Promise<'terminated' | 'killed' | 'gone'>;
}

/** The session monitor: every exec, attach, port-forward, log-follow and file-transfer session. */
export interface SessionsService {
  /** Ends a live session, the way closing its pane or stopping its forward would. */
  kill(sessionId: string): Promise<void>;
  /** Forgets the ended sessions kept for the monitor's history. */
  clearHistory(): Promise<void>;
}

/** Port forwards of every node, saved or not, running or stopped. */
export interface ForwardsService {
  list(): Promise<readonly ForwardEntry[]>;
  /**
   * Starts a new forward; resolves once it is active. Saved (and auto-started later) only
   * when asked. Rejects, keeping nothing, when it can't start (port in use, no such pod).
   */
  create(nodeId: string, spec: ForwardSpec, options?: ForwardOptions): Promise<ForwardEntry>;
  start(forwardId: string): Promise<ForwardEntry>;
  stop(forwardId: string): Promise<ForwardEntry>;
  restart(forwardId: string): Promise<ForwardEntry>;
  /** Renames it, saves or unsaves it, turns auto-start on or off. */
  update(forwardId: string, options: ForwardOptions): Promise<ForwardEntry>;
  /** Stops it and forgets it, saved or not. */
  remove(forwardId: string): Promise<void>;
  /**
   * Points it at another node (e.g. its own was removed): it stops on the old one, keeps
   * its name, ports and saving, and starts on the new one if it was running (and the new
   * node is connected) or when that node connects, for an auto-start forward.
   */
  move(forwardId: string, nodeId: string): Promise<ForwardEntry>;
}

/**
 * Container logs. A log is opened once and read in windows (`lines`), so a million lines
 * never cross the wire at once; the `logs` event reports growth while following.
 */
export interface LogsService {
  open(request: LogOpenRequest): Promise<LogInfo>;
  /**
   * Several containers' logs merged by timestamp into one log (read, searched and closed
   * as any other); each line says its source. Fails only when none of them opens.
   */
  openMerged(request: MergedLogOpenRequest): Promise<MergedLogInfo>;
  /** Lines `from`…`from + count - 1` of the view, and how many lines the view has. */
  lines(
    logId: string,
    view: LogView,
    from: number,
    count: number,
  ): Promise<{ readonly lines: readonly LogLine[]; readonly total: number }>;
  /**
   * The view's lines that match, in order (default limit 10,000). An empty text matches
   * nothing, and lets the core prepare for the searches to come: ask for it when the user
   * starts typing a query.
   */
  search(
    logId: string,
    view: LogView,
    query: LogSearchQuery,
    limit?: number,
  ): Promise<LogSearchResult>;
  close(logId: string): Promise<void>;
}

/**
 * Run on many: one command on many running containers across the connected nodes, with
 * a bounded fan-out. A run's rows arrive on the `fanout` event; ended runs are kept (the
 * last few) until closed.
 */
export interface FanoutService {
  /**
   * The containers a run with these targets would run on now (rows in `queued`), and a
   * row for each node that could not be searched. Rejects a bad selector or pattern with
   * `invalid-argument`.
   */
  preview(targets: FanoutRequest['targets']): Promise<readonly FanoutRow[]>;
  /** Starts a run; resolves once its targets are found (its rows queued). */
  start(request: FanoutRequest): Promise<FanoutRunInfo>;
  /** Stops what still runs: queued rows are cancelled, running ones ended. */
  cancel(runId: string): Promise<void>;
  /** The run's rows as JSON lines, one object per container (outputs as kept). */
  exportJsonLines(runId: string): Promise<string>;
  /** Cancels the run if it still runs and forgets it. */
  close(runId: string): Promise<void>;
}

/** How many app-log entries `diagnostics.recentLog` returns by default, and at most. */
export const recentLogDefaultCount = 200;
export const recentLogMaxCount = 500;

/** Porthole's own health, for the Diagnostics view and bug reports. */
export interface DiagnosticsService {
  /**
   * The newest entries of Porthole's log (already redacted), oldest first: at most
   * `count` (1…500, default 200) and at most 256 KiB of text in all.
   */
  recentLog(count?: number): Promise<AppLogTail>;
  /**
   * Versions, nodes (name, kind, state, runtime) and their capabilities. Holds no
   * endpoint, user name or credential: it is meant to be pasted into a public issue.
   */
  report(): Promise<DiagnosticsReport>;
}

/**
 * Debug containers (see DebugStartRequest): a toolbox container in a target's pod and PID
 * namespace, for a container with no shell. Its terminal is an ordinary exec terminal
 * (`terminals.open` on `container.containerId`); when the last terminal into it ends,
 * the core stops and removes it, unless it is kept.
 */
export interface DebugService {
  /**
   * Creates and starts a debug container beside the target, pulling the image when the
   * node lacks it. Rejects in words when the runtime refuses: no TARGET PID namespace
   * support, the image can't be pulled, the target or its sandbox is gone.
   */
  start(request: DebugStartRequest): Promise<DebugStarted>;
  /** The node's debug containers, found by their label: this Porthole's and leftovers. */
  list(nodeId: string): Promise<readonly DebugContainer[]>;
  /** Keeps it past its terminals (true), or lets it go with the last one (false). */
  keep(nodeId: string, containerId: string, keep: boolean): Promise<DebugContainer>;
  /**
   * Stops and removes a debug container (kept, leftover or active: its terminals end).
   * Refuses a container that is not labelled as Porthole's debug container.
   */
  remove(nodeId: string, containerId: string): Promise<void>;
}

/**
 * A container's files (see shared/model/files.ts): listings, and downloads and uploads
 * that stream through an exec, never whole in memory. Transfers and their progress are
 * on the `transfers` event, and each shows in the session monitor as an exec.
 */
export interface FilesService {
  /** A directory's entries. Rejects in words: no such directory, permission denied, no shell. */
  list(request: FilesListRequest): Promise<FilesListing>;
  /**
   * Prepares a download: checks the path and returns the transfer, whose bytes are
   * fetched from its `url` (a same-origin address the app's page downloads, so the
   * browser or Electron streams them to disk). Unfetched, it expires after a minute.
   */
  download(request: FilesDownloadRequest): Promise<FileTransfer>;
  /** Starts an upload: the exec that unpacks runs; the bytes follow with `write`. */
  upload(request: FilesUploadRequest): Promise<FileTransfer>;
  /**
   * The next bytes of the upload, in the order of its files (at most
   * `filesLimits.maxChunkBytes`); they are the core's once passed. Up to
   * `filesLimits.writesInFlight` writes may be on their way at once, applied in call
   * order. Resolves once at most a few MiB wait in the core to go to the container, so
   * memory stays bounded while the next writes are already on their way. Rejects at once
   * when the container gave up on the upload (permission denied, no space), with why.
   */
  write(transferId: string, data: Uint8Array): Promise<void>;
  /**
   * Every byte was written: resolves with the transfer once the container unpacked it,
   * checked its sha256 (the transfer is `verifying` meanwhile) and moved it into place.
   */
  finish(transferId: string): Promise<FileTransfer>;
  /** Stops a transfer; what it had written is removed. */
  cancel(transferId: string): Promise<void>;
}

/**
 * A node's timeline (the flight recorder): its events arrive on the `timeline` event; they
 * are kept across restarts in `timeline.jsonl` in the config directory.
 */
export interface TimelineService {
  /** Forgets every recorded event, in memory and in the file. */
  clear(): Promise<void>;
}

/** Service name → interface. Adding a service here adds it everywhere. */
export interface Services {
  readonly nodes: NodesService;
  readonly resources: ResourcesService;
  readonly lifecycle: LifecycleService;
  readonly terminals: TerminalsService;
  readonly sessions: SessionsService;
  readonly forwards: ForwardsService;
  readonly logs: LogsService;
  readonly diagnostics: DiagnosticsService;
  readonly debug: DebugService;
  readonly fanout: FanoutService;
  readonly files: FilesService;
  readonly timeline: TimelineService;
}
