/** Detail parts more than one resource kind shows: built once, used by each kind's file. */
import type { ReactNode } from 'react';
import type { StringMap } from '../../../../../shared/model';
import { useModel } from '../../../app/context';
import { CopyButton } from '../../../app/CopyButton';
import type { ResourceAction } from '../../../app/registry';
import { StateBadge } from '../../../ui/Badge';
import { Button } from '../../../ui/Button';
import { useNow } from '../../../ui/clock';
import { formatAge } from '../../../ui/format';
import { JsonTree } from '../../../ui/JsonTree';
import { jsonForClipboard } from '../../../ui/json';
import { KeyValueTable } from '../../../ui/table/KeyValueTable';
import { Section } from '../../../ui/view/detail-parts';
import { crictlFor } from '../actions';
import type { CrictlAction } from '../crictl';
import type { ContainerRow } from '../model';
import { showContainer } from '../navigation';

/** A date in full, with how long ago; a dash when the runtime gave none. */
export function Timestamp({ at }: { at: number | undefined }) {
  const now = useNow();
  if (at === undefined || at <= 0) return <span className="faint">—</span>;
  return (
    <span title={new Date(at).toISOString()}>
      {new Date(at).toLocaleString()} <span className="faint">({formatAge(at, now)} ago)</span>
    </span>
  );
}

/** A runtime id in full, with a button that copies it. */
export function IdValue({ id, what }: { id: string; what: string }) {
  return (
    <span className="detail-id">
      <code>{id}</code>
      <CopyButton text={id} what={what} compact />
    </span>
  );
}

/** A value the runtime may leave empty: the value, or a faint word for nothing. */
export function OrNone({
  value,
  none,
  code = false,
}: {
  value: string | undefined;
  none: string;
  code?: boolean;
}) {
  if (value === undefined || value === '') return <span className="faint">{none}</span>;
  return code ? <code>{value}</code> : <>{value}</>;
}

/** A pod's or container's labels, annotations and runtime info: the last sections. */
export function Metadata({
  detail,
}: {
  detail: {
    readonly name: string;
    readonly labels: StringMap;
    readonly annotations: StringMap;
    readonly info: Readonly<Record<string, unknown>>;
  };
}) {
  return (
    <>
      <Section title="Labels">
        <KeyValueTable entries={detail.labels} label="Labels" />
      </Section>
      <Section title="Annotations">
        <KeyValueTable entries={detail.annotations} label="Annotations" />
      </Section>
      <VerboseInfo info={detail.info} name={detail.name} />
    </>
  );
}

/** The runtime's verbose info (Status with verbose=true), as a tree to fold and copy. */
function VerboseInfo({ info, name }: { info: Readonly<Record<string, unknown>>; name: string }) {
  const empty = Object.keys(info).length === 0;
  return (
    <Section
      title="Runtime info"
      action={
        !empty && (
          <CopyButton
            text={() => jsonForClipboard(info)}
            what="the runtime info as JSON"
            label="Copy JSON"
          />
        )
      }
    >
      {empty ? (
        <p className="faint">The runtime reported no verbose info.</p>
      ) : (
        <JsonTree value={info} label={`Runtime info of ${name}`} />
      )}
    </Section>
  );
}

/** Containers related to the open row (a pod's, an image's users), each a link to it. */
export function ContainerLinks({
  containers,
  none,
  after,
}: {
  containers: readonly ContainerRow[];
  /** Said instead of an empty list. */
  none: string;
  /** What follows each name: its image, its pod. */
  after: (container: ContainerRow) => ReactNode;
}) {
  const model = useModel();
  if (containers.length === 0) return <p className="faint">{none}</p>;
  return (
    <ul className="list-plain detail-links">
      {containers.map((container) => (
        <li key={container.key}>
          <StateBadge state={container.state} />
          <button
            type="button"
            className="link"
            onClick={() => showContainer(model, container.key)}
          >
            {container.name}
          </button>
          {after(container)}
        </li>
      ))}
    </ul>
  );
}

/** The actions other features contribute (terminals, logs, forwards…), as buttons. */
export function ContributedActions<Row>({
  row,
  actions,
}: {
  row: Row;
  actions: readonly ResourceAction<Row>[];
}) {
  const model = useModel();
  return actions.map((action) => {
    const unavailable = action.unavailable?.(row);
    return (
      <Button
        key={action.id}
        small
        {...(action.icon !== undefined && { icon: action.icon })}
        disabled={unavailable !== undefined}
        title={unavailable}
        onClick={() => action.run(model, row)}
      >
        {action.title}
      </Button>
    );
  });
}

/** Removes the open row (after the kind's own confirmation). */
export function RemoveButton({ onRemove }: { onRemove: () => void }) {
  return (
    <Button small icon="trash" onClick={onRemove}>
      Remove
    </Button>
  );
}

/** Copies the crictl command that does what the pane shows, on the row's node. */
export function CrictlCopy({
  nodeId,
  action,
  label,
}: {
  nodeId: string;
  action: CrictlAction;
  label: string;
}) {
  const model = useModel();
  return (
    <CopyButton text={crictlFor(model, nodeId, action)} what="the crictl command" label={label} />
  );
}
