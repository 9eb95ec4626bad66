/**
 * The Run on many view's state, kept for the window's lifetime: the form, the run under
 * way or last run, its rows as the `fanout` event sends them, and what the grid shows
 * (expanded rows, the two rows being compared).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type {
  FanoutMode,
  FanoutRequest,
  FanoutRow,
  FanoutRunInfo,
  FanoutTargets,
  FanoutUpdate,
} from '../../../../shared/model';
import { fanoutLimits } from '../../../../shared/model';
import { FeatureState } from '../../app/feature-state';
import type { AppModel } from '../../app/model';
import type { Disposable } from '../../platform';
import { commandWords } from './command-words';
import { saveText } from '../../ui/save-file';

export type TargetKind = FanoutTargets['kind'];

export interface FanoutForm {
  readonly targetKind: TargetKind;
  readonly selector: string;
  readonly pattern: string;
  /** Chosen containers' keys, `<nodeId>/<containerId>`. */
  readonly chosen: readonly string[];
  /** Nodes to search for labels and names; undefined = every connected node. */
  readonly nodeIds?: readonly string[];
  readonly commandText: string;
  /** Run the text through `sh -c` (else split into words). */
  readonly shell: boolean;
  readonly mode: FanoutMode;
  readonly timeoutSeconds: number;
  readonly concurrency: number;
}

export interface FanoutState {
  readonly form: FanoutForm;
  readonly starting: boolean;
  readonly run?: FanoutRunInfo;
  readonly rows: readonly FanoutRow[];
  readonly error?: AppErrorData;
  /** Why the event stream of the run ended, if it did before the run. */
  readonly streamError?: AppErrorData;
  readonly expanded: readonly string[];
  /** Up to two row keys, in the order chosen: the diff's left and right. */
  readonly compare: readonly string[];
  readonly grouped: boolean;
}

const defaultForm: FanoutForm = {
  targetKind: 'labels',
  selector: '',
  pattern: '',
  chosen: [],
  commandText: '',
  shell: true,
  mode: 'auto',
  timeoutSeconds: fanoutLimits.defaultTimeoutSeconds,
  concurrency: fanoutLimits.defaultConcurrency,
};

export function requestOf(form: FanoutForm): FanoutRequest {
  const scope = form.nodeIds !== undefined ? { nodeIds: form.nodeIds } : {};
  const targets: FanoutTargets =
    form.targetKind === 'selection'
      ? {
          kind: 'selection',
          containers: form.chosen.map((key) => {
            const slash = key.lastIndexOf('/');
            return { nodeId: key.slice(0, slash), containerId: key.slice(slash + 1) };
          }),
        }
      : form.targetKind === 'labels'
        ? { kind: 'labels', selector: form.selector, ...scope }
        : { kind: 'name', pattern: form.pattern, ...scope };
  return {
    targets,
    command: commandWords(form.commandText, form.shell),
    mode: form.mode,
    timeoutSeconds: form.timeoutSeconds,
    concurrency: form.concurrency,
  };
}

export class FanoutController implements Disposable {
  readonly store: StoreApi<FanoutState>;
  private subscription: Disposable | undefined;
  private seq = 0;

  constructor(private readonly model: AppModel) {
    this.store = createStore<FanoutState>()(() => ({
      form: defaultForm,
      starting: false,
      rows: [],
      expanded: [],
      compare: [],
      grouped: true,
    }));
  }

  private get state(): FanoutState {
    return this.store.getState();
  }

  setForm(change: Partial<FanoutForm>): void {
    this.store.setState({ form: { ...this.state.form, ...change } });
  }

  /** Chooses containers to run on (the containers view's "Run on many…"). */
  choose(keys: readonly string[]): void {
    this.setForm({ targetKind: 'selection', chosen: [...new Set(keys)] });
  }

  async start(): Promise<void> {
    if (this.state.starting) return;
    const seq = ++this.seq;
    this.store.setState({ starting: true, error: undefined });
    try {
      const info = await this.model.client.services.fanout.start(requestOf(this.state.form));
      if (seq !== this.seq) {
        void this.model.client.services.fanout.close(info.runId).catch(() => undefined);
        return;
      }
      this.forgetRun();
      this.store.setState({
        run: info,
        rows: [],
        expanded: [],
        compare: [],
        streamError: undefined,
      });
      this.subscription = this.model.client.subscribe(
        'fanout',
        { runId: info.runId },
        (update) => this.onUpdate(info.runId, update),
        (error) => {
          if (this.state.run?.runId === info.runId) {
            this.store.setState({ streamError: toAppErrorData(error) });
          }
        },
      );
    } catch (error) {
      if (seq === this.seq) this.store.setState({ error: toAppErrorData(error) });
    } finally {
      if (seq === this.seq) this.store.setState({ starting: false });
    }
  }

  cancel(): void {
    const runId = this.state.run?.runId;
    if (runId === undefined) return;
    this.model.client.services.fanout.cancel(runId).catch((error: unknown) =>
      this.model.toasts.getState().show({
        tone: 'error',
        title: 'Could not cancel the run',
        error: toAppErrorData(error),
      }),
    );
  }

  toggleExpanded(key: string): void {
    const { expanded } = this.state;
    this.store.setState({
      expanded: expanded.includes(key) ? expanded.filter((k) => k !== key) : [...expanded, key],
    });
  }

  /** Marks a row for the diff: the two most recently marked are compared. */
  toggleCompare(key: string): void {
    const { compare } = this.state;
    this.store.setState({
      compare: compare.includes(key)
        ? compare.filter((k) => k !== key)
        : [...compare, key].slice(-2),
    });
  }

  setGrouped(grouped: boolean): void {
    this.store.setState({ grouped });
  }

  async exportJsonLines(): Promise<void> {
    const run = this.state.run;
    if (run === undefined) return;
    try {
      const text = await this.model.client.services.fanout.exportJsonLines(run.runId);
      saveText(
        `run-on-many-${new Date(run.startedAt).toISOString().replaceAll(':', '-')}.jsonl`,
        text,
        'application/x-ndjson',
      );
    } catch (error) {
      this.model.toasts.getState().show({
        tone: 'error',
        title: 'Could not export the run',
        error: toAppErrorData(error),
      });
    }
  }

  dispose(): void {
    this.seq += 1;
    this.forgetRun();
  }

  private onUpdate(runId: string, update: FanoutUpdate): void {
    if (this.state.run?.runId !== runId) return;
    if (update.reset) {
      this.store.setState({ run: update.run, rows: update.rows });
      return;
    }
    const changed = new Map(update.rows.map((row) => [row.key, row]));
    this.store.setState({
      run: update.run,
      rows: this.state.rows.map((row) => changed.get(row.key) ?? row),
    });
  }

  private forgetRun(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
    const runId = this.state.run?.runId;
    if (runId !== undefined) {
      void this.model.client.services.fanout.close(runId).catch(() => undefined);
    }
  }
}

const fanoutState = new FeatureState('fanout', (model) => new FanoutController(model));

export function fanoutControllerOf(model: AppModel): FanoutController {
  return model.featureState(fanoutState);
}
