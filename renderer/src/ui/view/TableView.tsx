import type { ReactNode } from 'react';
import { VirtualTable, type VirtualTableProps } from '../table/VirtualTable';
import type { TableSelection } from './selection';

export type DetailPlacement = 'side' | 'below';

export type TableViewProps<Row extends { readonly key: string }> = Omit<
  VirtualTableProps<Row>,
  'selectedKey' | 'onSelect' | 'onActivate'
> & {
  readonly selection: TableSelection;
  /** The view's own class beside `view` (its feature's sheet styles its cells). */
  readonly className?: string;
  /** The filters and actions above the table (see Toolbar). */
  readonly toolbar: ReactNode;
  /** Banners between the toolbar and the table: node down, stream failed… */
  readonly banners?: ReactNode;
  /** The open row's DetailPane, when one is open. */
  readonly detail?: ReactNode;
  /** Beside the table (resources), or under it (forwards, sessions). */
  readonly detailPlacement?: DetailPlacement;
};

/**
 * A list screen: toolbar, banners, then the table with the selected row's details beside
 * or under it. Every table view is this one (pods, containers, images, port forwards,
 * sessions); a view brings its columns, filters and detail parts. The table's semantics
 * (grid roles, headers, sorting, selection, keyboard) are VirtualTable's.
 */
export function TableView<Row extends { readonly key: string }>({
  className,
  toolbar,
  banners,
  detail,
  detailPlacement = 'side',
  selection,
  ...table
}: TableViewProps<Row>) {
  return (
    <div className={className === undefined ? 'view' : `view ${className}`}>
      {toolbar}
      {banners}
      <div className={detailPlacement === 'side' ? 'split' : 'split below'}>
        <div className="split-main">
          <VirtualTable<Row>
            {...table}
            selectedKey={selection.key}
            onSelect={selection.select}
            onActivate={selection.open ?? selection.select}
          />
        </div>
        {detail}
      </div>
    </div>
  );
}
