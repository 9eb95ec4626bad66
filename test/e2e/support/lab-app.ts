/**
 * One e2e suite against the lab: a run id and label for everything the suite creates, a
 * CRI client for its setup, and Porthole itself — the real core connected to the newest
 * lab runtime, served in browser mode and opened in headless Chromium. `close` undoes it
 * all, including every pod carrying the run's label and their log directories.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createCore, type Core, type CoreOptions } from '../../../electron/core/composition';
import { CriClient } from '../../../electron/core/base/cri';
import type { Host } from '../../../electron/core/host';
import {
  busyboxContainerConfig,
  uiRuntime,
  podSandboxConfig,
  type LabPodSandboxConfig,
  type LabRuntime,
  type PodSandboxOptions,
  createLabContainer,
} from '../../support/lab';
import { openApp, startBrowserHost, type OpenedApp } from './browser-app';
import { launchChromium } from './chromium';

export interface LabPod {
  readonly podId: string;
  readonly config: LabPodSandboxConfig;
  /** Container name → id, in the order given. */
  readonly containerIds: Readonly<Record<string, string>>;
}

export interface OpenedLabApp {
  readonly core: Core;
  readonly host: Host;
  readonly browser: Browser;
  readonly opened: OpenedApp;
  readonly page: Page;
}

export interface LabAppOptions extends Pick<CoreOptions, 'watcherTimings'> {
  /** Default true. */
  readonly connect?: boolean;
  /** The browser window's size; openApp's default otherwise. */
  readonly window?: { readonly width: number; readonly height: number };
  /**
   * Discovery's environment, over the default: the newest lab runtime through
   * CONTAINER_RUNTIME_ENDPOINT, no crictl.yaml, no lab state file.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export class LabSuite {
  readonly runId = Math.random().toString(36).slice(2, 8);
  readonly runLabel: Readonly<Record<string, string>> = { 'e2e-run': this.runId };
  /** containerd 2.x by default (see uiRuntime): it has container events, so changes show at once. */
  readonly runtime: LabRuntime;
  readonly nodeId: string;
  readonly cri: CriClient;
  /** Clients of the other lab runtimes pods were run on, by runtime id. */
  private readonly others = new Map<string, CriClient>();
  private app: OpenedLabApp | undefined;
  private configDir: string | undefined;
  private readonly logDirectories: string[] = [];

  /** `runtime`: another lab runtime than uiRuntime()'s, for a suite about that runtime. */
  constructor(
    private readonly suite: string,
    runtime?: LabRuntime,
  ) {
    this.runtime = runtime ?? uiRuntime();
    this.nodeId = `local:${this.runtime.endpoint}`;
    this.cri = CriClient.create({ endpoint: this.runtime.endpoint, timeoutMs: 30_000 });
  }

  /** `e2e-<run>-<name>`: a pod name no other run uses. */
  podName(name: string): string {
    return `e2e-${this.runId}-${name}`;
  }

  /** A CRI client of `runtime` (the suite's own for its runtime), closed with the suite. */
  criOf(runtime: LabRuntime): CriClient {
    if (runtime.id === this.runtime.id) return this.cri;
    let client = this.others.get(runtime.id);
    if (client === undefined) {
      client = CriClient.create({ endpoint: runtime.endpoint, timeoutMs: 30_000 });
      this.others.set(runtime.id, client);
    }
    return client;
  }

  /**
   * Runs a pod (labelled with the run) with busybox containers, container name → command,
   * started in order; on the suite's runtime unless `options.runtime` names another.
   */
  async runPod(
    name: string,
    containers: Readonly<Record<string, readonly string[]>>,
    options: PodSandboxOptions = {},
  ): Promise<LabPod> {
    const runtime = options.runtime ?? this.runtime;
    const cri = this.criOf(runtime);
    const config = podSandboxConfig(this.podName(name), {
      ...options,
      runtime,
      labels: { ...options.labels, ...this.runLabel },
    });
    this.logDirectories.push(config.logDirectory);
    const podId = await cri.runPod(config);
    const containerIds: Record<string, string> = {};
    for (const [container, command] of Object.entries(containers)) {
      const id = await createLabContainer(
        cri,
        podId,
        busyboxContainerConfig(container, [...command], { labels: this.runLabel }),
        config,
      );
      await cri.startContainer(id);
      containerIds[container] = id;
    }
    return { podId, config, containerIds };
  }

  /** A log directory to remove on close: that of a pod the suite ran through the UI. */
  removeOnClose(directory: string): void {
    this.logDirectories.push(directory);
  }

  /**
   * Porthole on the lab runtime, in headless Chromium; the node connected unless the suite
   * connects it through the UI.
   */
  async open(options: LabAppOptions = {}): Promise<OpenedLabApp> {
    this.configDir = mkdtempSync(join(tmpdir(), `porthole-e2e-${this.suite}-`));
    const core = createCore({
      ...(options.watcherTimings !== undefined && { watcherTimings: options.watcherTimings }),
      configDir: this.configDir,
      env: {
        CONTAINER_RUNTIME_ENDPOINT: this.runtime.endpoint,
        CRI_CONFIG_FILE: join(this.configDir, 'none'),
        PORTHOLE_LAB_DIR: join(this.configDir, 'no-lab'),
        ...options.env,
      },
    });
    if (options.connect !== false) await core.services.nodes.connect(this.nodeId);
    const host = await startBrowserHost(core.services, core.events, core.downloads);
    const browser = await launchChromium();
    const opened = await openApp(browser, host, options.window ?? {});
    this.app = { core, host, browser, opened, page: opened.page };
    return this.app;
  }

  async close(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.opened.close();
    await app?.browser.close();
    await app?.host.close();
    app?.core.dispose();
    for (const cri of [this.cri, ...this.others.values()]) {
      for (const pod of await cri.listPods({ labels: this.runLabel }).catch(() => [])) {
        await cri.stopPod(pod.id).catch(() => undefined);
        await cri.removePod(pod.id).catch(() => undefined);
      }
      cri.dispose();
    }
    this.others.clear();
    for (const directory of this.logDirectories)
      rmSync(directory, { recursive: true, force: true });
    if (this.configDir !== undefined) rmSync(this.configDir, { recursive: true, force: true });
  }
}
