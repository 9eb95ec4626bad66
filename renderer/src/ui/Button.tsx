import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { Icon, type IconName } from './icons';

export type ButtonVariant = 'primary' | 'danger' | 'ghost';

export interface ButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'className'> {
  /** A 14 px icon before the label. */
  readonly icon?: IconName;
  /** The denser button of detail panes, cards and table rows. */
  readonly small?: boolean;
  readonly variant?: ButtonVariant;
  /** Only the icon shows: give the button an `aria-label`. */
  readonly iconOnly?: boolean;
  readonly children?: ReactNode;
}

/** The app's button (`.btn`): one place for its classes, its icon and its type. */
export function Button({
  icon,
  small = false,
  variant,
  iconOnly = false,
  type = 'button',
  children,
  ...rest
}: ButtonProps) {
  const classes = ['btn'];
  if (small) classes.push('btn-small');
  if (variant !== undefined) classes.push(`btn-${variant}`);
  if (iconOnly) classes.push('btn-icon');
  return (
    <button type={type} className={classes.join(' ')} {...rest}>
      {icon !== undefined && <Icon name={icon} size={14} />}
      {children}
    </button>
  );
}

/** Reloads the window: the way back once the connection to the core is gone for good. */
export function ReloadButton() {
  return (
    <Button small onClick={() => window.location.reload()}>
      Reload
    </Button>
  );
}
