import { useStore } from 'zustand';
import { noShellStep } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { Icon } from '../../ui/icons';
import { openDebugDialog } from '../debug';
import { resourceKey } from '../resources/model';
import { showContainer } from '../resources/navigation';
import { LeftoverFinder } from './LeftoverFinder';
import { canReopen, endedSummary, startingText } from './phase';
import type { TerminalPane } from './pane';

/** "Starting bash in web…" over the terminal until the stream is up. */
export function StartingOverlay({
  pane,
  containerName,
}: {
  pane: TerminalPane;
  containerName: string;
}) {
  const phase = useStore(pane.status, (state) => state.phase);
  const text = startingText(phase, containerName);
  if (text === undefined) return null;
  return (
    <div className="term-overlay" role="status">
      <div className="term-overlay-box">
        <span className="spinner" />
        {text}
      </div>
    </div>
  );
}

/**
 * How the terminal ended, with Reopen (a new terminal) and Close; when the container itself
 * ended, which no new terminal can fix, what can be done instead.
 */
export function EndedBanner({ pane, onClose }: { pane: TerminalPane; onClose: () => void }) {
  const model = useModel();
  const phase = useStore(pane.status, (state) => state.phase);
  if (phase.phase !== 'ended') return null;
  const summary = endedSummary(phase);
  const reopenable = canReopen(phase);
  const { nodeId, containerId, containerName, podName } = pane.sameTarget;
  const noShell = phase.error?.step === noShellStep;
  return (
    <div className="term-ended" role="status" aria-label="Session ended" data-tone={summary.tone}>
      <Icon name={summary.tone === 'error' ? 'alert' : 'info'} />
      <div className="term-ended-text">
        <div className="term-ended-title">{summary.title}</div>
        {summary.detail !== undefined && <div className="muted">{summary.detail}</div>}
        {summary.hint !== undefined && <div className="muted">{summary.hint}</div>}
        {phase.mayStillRun === true && phase.info !== undefined && (
          <LeftoverFinder info={phase.info} />
        )}
        {reopenable && <div className="faint">Press Enter in the terminal to reopen.</div>}
      </div>
      <div className="term-ended-actions">
        {noShell && (
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() =>
              openDebugDialog(
                model,
                { nodeId, containerId, containerName, ...(podName !== undefined && { podName }) },
                `${containerName} has no shell: debug it from a toolbox container instead.`,
              )
            }
          >
            <Icon name="search" size={14} />
            Debug…
          </button>
        )}
        {noShell ? null : reopenable ? (
          <button type="button" className="btn btn-small btn-primary" onClick={() => pane.reopen()}>
            <Icon name="refresh" size={14} />
            Reopen
          </button>
        ) : phase.container === 'stopped' ? (
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() => showContainer(model, resourceKey(nodeId, containerId))}
          >
            <Icon name="containers" size={14} />
            Show the container
          </button>
        ) : (
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() => model.ui.getState().navigate('containers')}
          >
            <Icon name="containers" size={14} />
            Go to Containers
          </button>
        )}
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}

/** A problem that didn't end the terminal (input refused, the GPU lost), dismissable. */
export function NoticeBar({ pane }: { pane: TerminalPane }) {
  const notice = useStore(pane.status, (state) => state.notice);
  if (notice === undefined) return null;
  return (
    <div className="term-notice" role="status">
      <Icon name="alert" size={14} />
      <span>{notice}</span>
      <button
        type="button"
        className="term-icon-button"
        aria-label="Dismiss"
        onClick={() => pane.status.setState({ notice: undefined })}
      >
        <Icon name="close" size={12} />
      </button>
    </div>
  );
}
