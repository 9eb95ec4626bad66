/** Images: their columns and detail parts. */
import { useMemo } from 'react';
import type { Image } from '../../../../../shared/model';
import { useModel } from '../../../app/context';
import { Badge } from '../../../ui/Badge';
import { formatBytes, plural } from '../../../ui/format';
import { Prop, Props, Section } from '../../../ui/view/detail-parts';
import { confirmRemoveImage } from '../actions';
import { NodeName } from '../cells';
import { shortId, type ImageRow } from '../model';
import { useAllRows } from '../use-rows';
import { idColumn, withAndWithoutNode } from './columns';
import { PullImageButton } from './create';
import type { ResourceKindView } from './kind';
import { ContainerLinks, CrictlCopy, IdValue, RemoveButton } from './parts';

const columns = withAndWithoutNode<ImageRow>([
  {
    id: 'name',
    header: 'Image',
    width: 220,
    grow: 3,
    sortable: true,
    render: (row) => (
      <span className="cell-primary" title={[...row.repoTags, ...row.repoDigests].join('\n')}>
        {row.displayName}
        {row.repoTags.length > 1 && <span className="faint"> +{row.repoTags.length - 1}</span>}
      </span>
    ),
  },
  idColumn<ImageRow>(),
  {
    id: 'size',
    priority: 50,
    header: 'Size',
    width: 92,
    sortable: true,
    align: 'end',
    render: (row) => formatBytes(row.sizeBytes),
  },
  {
    id: 'used',
    priority: 40,
    header: 'In use',
    width: 140,
    sortable: true,
    render: (row) => {
      if (row.usedBy + row.sandboxes === 0) return <span className="faint">unused</span>;
      // The pause image: every pod sandbox runs from it, though no container names it.
      const users = [
        row.usedBy > 0 && plural(row.usedBy, 'container'),
        row.sandboxes > 0 && plural(row.sandboxes, 'pod sandbox', 'pod sandboxes'),
      ].filter((text): text is string => text !== false);
      return (
        <Badge tone="ok" title={`In use by ${users.join(' and ')}`}>
          {users.join(', ')}
        </Badge>
      );
    },
  },
  {
    id: 'pinned',
    priority: 20,
    header: 'Pinned',
    width: 86,
    render: (row) =>
      row.pinned ? (
        <Badge tone="info" plain>
          pinned
        </Badge>
      ) : null,
  },
]);

function ImageActions({ row: image }: { row: ImageRow }) {
  const model = useModel();
  return (
    <>
      <RemoveButton onRemove={() => confirmRemoveImage(model, image)} />
      <CrictlCopy
        nodeId={image.nodeId}
        action={{ kind: 'inspect-image', ref: image.id }}
        label="crictl inspecti"
      />
    </>
  );
}

function ImageBody({ row: image, detail }: { row: ImageRow; detail: Image }) {
  const containers = useAllRows('containers');
  const users = useMemo(
    () =>
      containers.filter(
        (row) =>
          row.nodeId === image.nodeId &&
          (row.imageRef === image.id || image.repoTags.includes(row.image)),
      ),
    [containers, image],
  );
  return (
    <>
      <Section title="Image">
        <Props>
          <Prop label="Tags">
            {detail.repoTags.length === 0 ? (
              <span className="faint">untagged</span>
            ) : (
              <div className="chips">
                {detail.repoTags.map((tag) => (
                  <span key={tag} className="chip" title={tag}>
                    {tag}
                  </span>
                ))}
              </div>
            )}
          </Prop>
          <Prop label="Digests">
            {detail.repoDigests.length === 0 ? (
              <span className="faint">none</span>
            ) : (
              detail.repoDigests.map((digest) => (
                <div key={digest}>
                  <code>{digest}</code>
                </div>
              ))
            )}
          </Prop>
          <Prop label="Size">{formatBytes(detail.sizeBytes)}</Prop>
          <Prop label="User">{detail.user ?? <span className="faint">not set (root)</span>}</Prop>
          <Prop label="Pinned">
            {detail.pinned ? 'yes — the runtime keeps it (e.g. the pause image)' : 'no'}
          </Prop>
          <Prop label="Node">
            <NodeName nodeId={image.nodeId} />
          </Prop>
          <Prop label="ID">
            <IdValue id={detail.id} what="the image id" />
          </Prop>
        </Props>
      </Section>
      <Section title={`Used by (${users.length + image.sandboxes})`}>
        {image.sandboxes > 0 && (
          <p>
            {plural(image.sandboxes, 'pod sandbox', 'pod sandboxes')}: it is the image this
            node&rsquo;s runtime runs every pod sandbox from (the pause image).
          </p>
        )}
        <ContainerLinks
          containers={users}
          none={
            image.sandboxes > 0
              ? 'No container names it.'
              : 'No container or pod sandbox on this node uses this image.'
          }
          after={(container) => (
            <span className="faint">in {container.podName || shortId(container.podSandboxId)}</span>
          )}
        />
      </Section>
    </>
  );
}

export const imageKind: ResourceKindView<'images'> = {
  kind: 'images',
  title: 'Images',
  one: 'Image',
  nouns: ['image', 'images'],
  icon: 'images',
  columns,
  namespaced: false,
  titleOf: (row) => row.displayName,
  Actions: ImageActions,
  Body: ImageBody,
  Create: PullImageButton,
  noneText: 'The runtime holds no images yet. Pull one to get started.',
};
