import { toAppErrorData } from '../../../../shared/errors';
import { copyWithToast } from '../../app/CopyButton';
import type { AppModel } from '../../app/model';
import type { CommandProvider } from '../../app/registry';
import { formatReport } from './report';

/** Reads a fresh report from the core and copies it; a failure shows as a toast. */
export async function copyReport(model: AppModel): Promise<void> {
  try {
    const report = await model.client.services.diagnostics.report();
    const text = formatReport(report, {
      mode: model.client.mode,
      ...(model.client.mode === 'browser' && { userAgent: navigator.userAgent }),
    });
    await copyWithToast(model, text, 'the diagnostics report');
  } catch (error) {
    model.toasts.getState().show({
      tone: 'error',
      title: 'Could not make the diagnostics report',
      error: toAppErrorData(error),
    });
  }
}

export const diagnosticsCommands: CommandProvider = (model) => [
  {
    id: 'diagnostics.copy-report',
    title: 'Copy diagnostics report (versions, nodes, capabilities)',
    group: 'Help',
    run: () => void copyReport(model),
  },
];
