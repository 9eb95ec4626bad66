import { useId, useState } from 'react';
import type {
  PendingHostKeyPrompt,
  PendingPassphrasePrompt,
  PromptAnswer,
} from '../../../../shared/model';
import { useModel } from '../../app/context';
import { isAppError, type PortholeClient } from '../../platform';
import { Dialog, FormActions } from '../../ui/Dialog';
import { Field } from '../../ui/Field';
import { usePendingPrompts } from './use-pending-prompts';

/** Sends an answer; resolves to what went wrong, if anything worth showing did. */
type Answer = (answer: PromptAnswer) => Promise<string | undefined>;

/** `host:port`, with an IPv6 address in brackets as ssh writes it. */
function hostAndPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Asks the user what SSH connection attempts are waiting on — trust an unknown host
 * key, unlock an encrypted key — one question at a time, oldest first, as a modal
 * dialog. Esc (or Cancel) answers "no". Answers go to `nodes.answerPrompt`; the dialog
 * closes when the core's `prompts` event no longer lists the question.
 */
export function PromptDialog({ client }: { client: PortholeClient }) {
  const prompts = usePendingPrompts(client);
  const prompt = prompts[0];
  if (prompt === undefined) return null;
  const waiting = prompts.length - 1;
  const answer: Answer = (value) =>
    client.services.nodes.answerPrompt(prompt.id, value).then(
      () => undefined,
      (error: unknown) => {
        // Answered elsewhere, timed out, or its attempt ended: the next event drops it.
        if (isAppError(error) && error.code === 'not-found') return undefined;
        return isAppError(error) ? error.message : 'The answer could not be sent.';
      },
    );
  // Keyed by id: a new question (a second passphrase attempt) starts with a fresh form.
  return prompt.kind === 'host-key' ? (
    <HostKeyQuestion key={prompt.id} prompt={prompt} waiting={waiting} onAnswer={answer} />
  ) : (
    <PassphraseQuestion key={prompt.id} prompt={prompt} waiting={waiting} onAnswer={answer} />
  );
}

/** PromptDialog on the app's own client: mount once, in the app root. */
export function Prompts() {
  const model = useModel();
  return <PromptDialog client={model.client} />;
}

function Waiting({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span className="footer-note">
      {count === 1 ? '1 more question waiting' : `${count} more questions waiting`}
    </span>
  );
}

/** Runs an answer, keeping the buttons disabled meanwhile and showing why it failed. */
function useSend(onAnswer: Answer) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const send = (answer: PromptAnswer): void => {
    if (busy) return;
    setBusy(true);
    setProblem(undefined);
    void onAnswer(answer).then((failure) => {
      // On success the question goes away with the next event; until then stay disabled.
      if (failure !== undefined) {
        setProblem(failure);
        setBusy(false);
      }
    });
  };
  return { busy, problem, send };
}

function HostKeyQuestion({
  prompt,
  waiting,
  onAnswer,
}: {
  prompt: PendingHostKeyPrompt;
  waiting: number;
  onAnswer: Answer;
}) {
  const { busy, problem, send } = useSend(onAnswer);
  const describedBy = useId();
  const fingerprintLabel = useId();
  const { host, port, keyType, fingerprintSha256 } = prompt.hostKey;
  const decline = (): void => send({ kind: 'host-key', trust: false });
  return (
    <Dialog
      title={`Connect to ${prompt.nodeName}?`}
      describedBy={describedBy}
      onClose={decline}
      footer={
        <>
          <Waiting count={waiting} />
          {/* Cancel has the focus: Enter must not trust a key nobody looked at. */}
          <button type="button" className="btn" data-autofocus disabled={busy} onClick={decline}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy}
            onClick={() => send({ kind: 'host-key', trust: true })}
          >
            Trust and connect
          </button>
        </>
      }
    >
      <p id={describedBy}>
        The authenticity of host <code className="mono">{hostAndPort(host, port)}</code> can’t be
        established.
      </p>
      <dl className="props">
        <dt>Key type</dt>
        <dd>
          <code className="mono">{keyType}</code>
        </dd>
        <dt id={fingerprintLabel}>Fingerprint</dt>
        <dd>
          <code className="mono" aria-labelledby={fingerprintLabel} style={{ userSelect: 'all' }}>
            {fingerprintSha256}
          </code>
        </dd>
      </dl>
      <p className="muted">
        Trust it only if it matches the host’s own key (on the host:{' '}
        <code className="mono">ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub</code>). Trusting adds it
        to known_hosts.
      </p>
      {problem !== undefined && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </Dialog>
  );
}

function PassphraseQuestion({
  prompt,
  waiting,
  onAnswer,
}: {
  prompt: PendingPassphrasePrompt;
  waiting: number;
  onAnswer: Answer;
}) {
  const { busy, problem, send } = useSend(onAnswer);
  // Held only while the dialog is open; never stored, never put in a message.
  const [passphrase, setPassphrase] = useState('');
  const inputId = useId();
  const describedBy = useId();
  const retryId = useId();
  const cancel = (): void => send({ kind: 'passphrase' });
  const unlock = (): void => {
    if (passphrase === '') return;
    send({ kind: 'passphrase', passphrase });
    setPassphrase('');
  };
  const retry = prompt.attempt > 1;
  return (
    <Dialog
      title={`Unlock the key for ${prompt.nodeName}`}
      describedBy={describedBy}
      onClose={cancel}
      onSubmit={unlock}
      footer={
        <>
          <Waiting count={waiting} />
          <FormActions
            submitLabel="Unlock"
            onCancel={cancel}
            disabled={busy || passphrase === ''}
            cancelDisabled={busy}
          />
        </>
      }
    >
      <p id={describedBy}>
        Connecting to <strong>{prompt.nodeName}</strong> needs the passphrase of the key{' '}
        <code className="mono">{prompt.keyPath}</code>.
      </p>
      {retry && (
        <p className="field-error" id={retryId} role="alert">
          That passphrase did not unlock the key. Try again.
        </p>
      )}
      <Field
        id={inputId}
        label="Passphrase"
        help="Used for this connection only; Porthole stores none."
      >
        <input
          id={inputId}
          className="input"
          type="password"
          autoComplete="off"
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          data-autofocus
          aria-invalid={retry ? 'true' : undefined}
          aria-describedby={retry ? retryId : undefined}
          value={passphrase}
          disabled={busy}
          onChange={(event) => setPassphrase(event.target.value)}
        />
      </Field>
      {problem !== undefined && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </Dialog>
  );
}
