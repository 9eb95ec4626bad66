/** A log's view (its streams; a merged log's containers too) as a field filter reads it. */
import type { LogView } from '../../../../shared/model';
import type { BaseView } from './field-view';
import { MergedLog } from './merged-log';
import type { OpenLog } from './open-log';
import { toMergedSelection } from './requests';
import { toStreamSelection } from './selection';

export function baseViewOf(log: OpenLog | MergedLog, view: LogView): BaseView {
  if (log instanceof MergedLog) {
    const selection = toMergedSelection(view, log.sourceCount);
    return {
      total: () => log.total(selection),
      text: (index) => log.window(selection, index, 1)[0]?.text ?? '',
      window: (from, count) => log.window(selection, from, count),
      search: (query, limit) => log.search(selection, query, limit),
      epoch: () => log.index.dropped,
    };
  }
  const { store, searcher } = log;
  const selection = toStreamSelection(view.streams);
  return {
    total: () => store.total(selection),
    text: (index) => store.decode(store.lineAt(selection, index), index).text,
    window: (from, count) => store.window(selection, from, count),
    search: (query, limit) => searcher.search(selection, query, limit),
    epoch: () => store.dropped,
  };
}
