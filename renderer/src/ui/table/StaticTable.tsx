import type { ReactNode } from 'react';

/** A column of a small table in a detail pane. */
export interface StaticColumn<Row> {
  readonly header: string;
  /** Numbers: right-aligned, tabular digits (header and cells). */
  readonly align?: 'end';
  /** Identifiers, ports, protocols: the cells in the monospace font. */
  readonly mono?: boolean;
  readonly render: (row: Row) => ReactNode;
  /** A cell's tooltip, e.g. the detail behind a short error. */
  readonly title?: (row: Row) => string | undefined;
}

/**
 * A small, whole table (connections, attempts, mounts): every row in the DOM, a header
 * row, nothing to sort or select. VirtualTable is the one for lists that grow.
 */
export function StaticTable<Row>({
  label,
  className,
  columns,
  rows,
  rowKey,
}: {
  label: string;
  /** Its classes: `detail-table` (the kit's look) and its own, or `kv-table`. */
  className: string;
  columns: readonly StaticColumn<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string | number;
}) {
  const cellClass = (column: StaticColumn<Row>, cell: boolean): string | undefined =>
    [column.align, cell && column.mono === true ? 'mono' : undefined].filter(Boolean).join(' ') ||
    undefined;
  return (
    <table className={className} aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.header} className={cellClass(column, false)}>
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)}>
            {columns.map((column) => (
              <td
                key={column.header}
                className={cellClass(column, true)}
                title={column.title?.(row)}
              >
                {column.render(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
