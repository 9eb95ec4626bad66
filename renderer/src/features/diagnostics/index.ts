import type { ViewDefinition } from '../../app/registry';
import { DiagnosticsView } from './DiagnosticsView';
import './diagnostics.css';

export const diagnosticsView: ViewDefinition = {
  id: 'diagnostics',
  title: 'Diagnostics',
  section: 'Help',
  icon: 'info',
  component: DiagnosticsView,
};

export { copyReport, diagnosticsCommands } from './commands';
