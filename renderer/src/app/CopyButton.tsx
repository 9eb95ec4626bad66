import { copyText } from '../ui/clipboard';
import { Icon } from '../ui/icons';
import { useModel } from './context';
import type { AppModel } from './model';

/** Copies and says so in a toast; a refused clipboard is reported, never swallowed. */
export async function copyWithToast(model: AppModel, text: string, what: string): Promise<void> {
  const toasts = model.toasts.getState();
  try {
    await copyText(text);
    toasts.show({ tone: 'success', title: `Copied ${what}` });
  } catch (error) {
    toasts.show({
      tone: 'error',
      title: `Could not copy ${what}`,
      error: {
        code: 'failed-precondition',
        message: error instanceof Error ? error.message : 'The clipboard refused the text.',
        hint: 'Select the text and copy it with Ctrl+C instead.',
      },
    });
  }
}

export function CopyButton({
  text,
  what,
  label,
  compact = false,
}: {
  /** The text, or a function that builds it when clicked. */
  text: string | (() => string);
  /** What is copied, for the toast: "the crictl command". */
  what: string;
  label?: string;
  compact?: boolean;
}) {
  const model = useModel();
  const title = label ?? `Copy ${what}`;
  return (
    <button
      type="button"
      className={compact ? 'btn btn-small btn-ghost btn-icon' : 'btn btn-small'}
      title={title}
      aria-label={compact ? title : undefined}
      onClick={() => void copyWithToast(model, typeof text === 'function' ? text() : text, what)}
    >
      <Icon name="copy" size={14} />
      {!compact && (label ?? 'Copy')}
    </button>
  );
}
