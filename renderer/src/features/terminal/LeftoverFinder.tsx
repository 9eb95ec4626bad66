import { useState } from 'react';
import { toAppErrorData, type AppErrorData } from '../../../../shared/errors';
import type { LeftoverProcess, LeftoverRef, TerminalInfo } from '../../../../shared/model';
import { useModel } from '../../app/context';
import { formatAge } from '../../ui/format';

type Look =
  | { readonly step: 'idle' }
  | { readonly step: 'looking' }
  | { readonly step: 'found'; readonly process: LeftoverProcess }
  | { readonly step: 'ending'; readonly process: LeftoverProcess }
  | { readonly step: 'done'; readonly text: string }
  | { readonly step: 'failed'; readonly error: AppErrorData };

/**
 * Under a session whose stream broke: "The process may still be running" becomes a
 * question Porthole can answer — look for it in the container (ExecSync reading /proc) and
 * offer to end it. Looking needs the node back: while it reconnects, the error says so.
 */
export function LeftoverFinder({ info }: { info: TerminalInfo }) {
  const model = useModel();
  const [look, setLook] = useState<Look>({ step: 'idle' });
  const ref: LeftoverRef = {
    nodeId: info.nodeId,
    containerId: info.containerId,
    command: info.command,
    openedAt: info.openedAt,
  };
  const services = model.client.services.terminals;
  const find = (): void => {
    setLook({ step: 'looking' });
    services.findLeftover(ref).then(
      (process) =>
        setLook(
          process === undefined
            ? { step: 'done', text: `${info.command.join(' ')} is no longer running.` }
            : { step: 'found', process },
        ),
      (error: unknown) => setLook({ step: 'failed', error: toAppErrorData(error) }),
    );
  };
  const end = (process: LeftoverProcess): void => {
    setLook({ step: 'ending', process });
    services.endLeftover(ref, process).then(
      (outcome) =>
        setLook({
          step: 'done',
          text:
            outcome === 'gone'
              ? `${process.command.join(' ')} had ended already.`
              : `Ended ${process.command.join(' ')} (pid ${process.pid})${outcome === 'killed' ? ' with SIGKILL' : ''}.`,
        }),
      (error: unknown) => setLook({ step: 'failed', error: toAppErrorData(error) }),
    );
  };
  const name = info.command.join(' ');
  return (
    <div className="term-leftover" aria-live="polite">
      {look.step === 'idle' && (
        <button type="button" className="btn btn-small" onClick={find}>
          Look for {name} in {info.containerName}
        </button>
      )}
      {look.step === 'looking' && (
        <span>
          <span className="spinner" /> Looking for {name} in {info.containerName}…
        </span>
      )}
      {(look.step === 'found' || look.step === 'ending') && (
        <>
          <span>
            Still running: <code>{look.process.command.join(' ')}</code> (pid {look.process.pid},
            for {formatAge(Date.now() - look.process.runningForMs, Date.now())}).
          </span>
          <button
            type="button"
            className="btn btn-small btn-danger"
            disabled={look.step === 'ending'}
            onClick={() => end(look.process)}
          >
            {look.step === 'ending' ? 'Ending…' : 'End it'}
          </button>
        </>
      )}
      {look.step === 'done' && <span>{look.text}</span>}
      {look.step === 'failed' && (
        <>
          <span>
            {look.error.message}
            {look.error.hint !== undefined ? ` ${look.error.hint}` : ''}
          </span>
          <button type="button" className="btn btn-small" onClick={find}>
            Look again
          </button>
        </>
      )}
    </div>
  );
}
