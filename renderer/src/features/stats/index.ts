import type { ViewDefinition } from '../../app/registry';
import { statsViewId } from './actions';
import { StatsView } from './StatsView';

export const statsView: ViewDefinition = {
  id: statsViewId,
  title: 'Stats',
  section: 'Monitor',
  icon: 'stats',
  component: StatsView,
};

export { containerStatsAction, podStatsAction } from './actions';
export { statsColumns } from './columns';
