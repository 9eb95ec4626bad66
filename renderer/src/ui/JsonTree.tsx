import { memo, useState } from 'react';
import { isContainer, jsonEntries, jsonKind, jsonScalar, jsonSummary } from './json';

/** Past this many children a node shows a "Show more" button instead of everything. */
const pageSize = 200;

interface NodeProps {
  name: string;
  value: unknown;
  depth: number;
  expandDepth: number;
}

function Scalar({ value }: { value: unknown }) {
  const kind = jsonKind(value);
  const className =
    kind === 'string' ? 'json-string' : kind === 'number' ? 'json-number' : 'json-literal';
  return <span className={className}>{jsonScalar(value)}</span>;
}

const JsonNode = memo(function JsonNode({ name, value, depth, expandDepth }: NodeProps) {
  const [expanded, setExpanded] = useState(depth < expandDepth);
  const [limit, setLimit] = useState(pageSize);
  const indent = { paddingLeft: `${depth * 14 + 4}px` };

  if (!isContainer(value)) {
    return (
      <li>
        <div className="json-line" style={indent}>
          <span className="json-toggle-spacer" />
          <span className="json-key">{name}:</span>
          <Scalar value={value} />
        </div>
      </li>
    );
  }

  const entries = expanded ? jsonEntries(value) : [];
  const empty = jsonSummary(value) === '{}' || jsonSummary(value) === '[]';
  return (
    <li>
      <div className="json-line" style={indent}>
        {empty ? (
          <span className="json-toggle-spacer" />
        ) : (
          <button
            type="button"
            className="json-toggle"
            aria-expanded={expanded}
            aria-label={`${expanded ? 'Collapse' : 'Expand'} ${name}`}
            onClick={() => setExpanded(!expanded)}
          >
            {expanded ? '▼' : '▶'}
          </button>
        )}
        <span className="json-key">{name}:</span>
        <span className="json-summary">{jsonSummary(value)}</span>
      </div>
      {expanded && entries.length > 0 && (
        <ul>
          {entries.slice(0, limit).map(([key, child]) => (
            <JsonNode
              key={key}
              name={key}
              value={child}
              depth={depth + 1}
              expandDepth={expandDepth}
            />
          ))}
          {entries.length > limit && (
            <li>
              <div className="json-line" style={{ paddingLeft: `${(depth + 1) * 14 + 22}px` }}>
                <button type="button" className="link" onClick={() => setLimit(limit + pageSize)}>
                  Show {Math.min(pageSize, entries.length - limit)} more of {entries.length - limit}
                </button>
              </div>
            </li>
          )}
        </ul>
      )}
    </li>
  );
});

/**
 * A collapsible view of a JSON value (the runtime's verbose info). Children render only
 * when opened, so a multi-megabyte OCI spec costs nothing until someone looks at it.
 */
export function JsonTree({
  value,
  label,
  expandDepth = 1,
}: {
  value: unknown;
  label: string;
  expandDepth?: number;
}) {
  const entries = isContainer(value) ? jsonEntries(value) : [['value', value] as [string, unknown]];
  return (
    <ul className="json-tree" aria-label={label}>
      {entries.map(([key, child]) => (
        <JsonNode key={key} name={key} value={child} depth={0} expandDepth={expandDepth} />
      ))}
    </ul>
  );
}
