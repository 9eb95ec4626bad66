/**
 * A small set of 16 px stroke icons drawn for Porthole (no icon font, no network).
 * Decorative by default: the button or link around an icon carries the accessible name.
 */
const paths = {
  nodes: 'M2.5 3.5h11v4h-11zM2.5 9.5h11v4h-11zM5 5.5h.01M5 11.5h.01M8 5.5h3M8 11.5h3',
  pods: 'M8 1.8l5.5 3.1v6.2L8 14.2l-5.5-3.1V4.9zM2.5 4.9L8 8l5.5-3.1M8 8v6.2',
  containers: 'M2 4.5h12v8H2zM4.5 4.5v8M7.5 4.5v8M10.5 4.5v8M2 2.5h12',
  images: 'M3 2.5h10v11H3zM3 10l3-3 3 3 2-2 2 2M10.5 5.5h.01',
  search: 'M7 12A5 5 0 1 0 7 2a5 5 0 0 0 0 10zM10.7 10.7L14 14',
  close: 'M4 4l8 8M12 4l-8 8',
  plus: 'M8 3v10M3 8h10',
  play: 'M5 3l8 5-8 5z',
  stop: 'M4 4h8v8H4z',
  trash: 'M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.7 9h5.6l.7-9M7 7v4.5M9 7v4.5',
  download: 'M8 2.5v8M4.5 7L8 10.5 11.5 7M3 13.5h10',
  copy: 'M5.5 5.5h7.5v8H5.5zM3 10.5V2.5h7.5',
  terminal: 'M2 3h12v10H2zM4.5 6l2 2-2 2M8 10.5h3.5',
  check: 'M3 8.5l3 3 7-7',
  alert: 'M8 2l6.5 11.5h-13zM8 6.5v3.5M8 12h.01',
  info: 'M8 14.5a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zM8 7.5v4M8 5h.01',
  plug: 'M6 1.5v3M10 1.5v3M4 4.5h8v3a4 4 0 0 1-8 0zM8 11.5v3',
  unplug: 'M4 4.5h8v3a4 4 0 0 1-8 0zM8 11.5v3M2 2l12 12',
  edit: 'M10.5 2.5l3 3-8 8h-3v-3z',
  refresh: 'M13 3v3.5H9.5M3 13V9.5h3.5M12.6 6.5A5 5 0 0 0 3.6 5M3.4 9.5a5 5 0 0 0 9 1.5',
  command:
    'M5.5 5.5h5v5h-5zM5.5 5.5V4a1.5 1.5 0 1 0-1.5 1.5zM10.5 5.5H12A1.5 1.5 0 1 0 10.5 4zM10.5 10.5V12a1.5 1.5 0 1 0 1.5-1.5zM5.5 10.5H4A1.5 1.5 0 1 0 5.5 12z',
  porthole:
    'M8 14.5a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zM8 11.5a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zM8 1.5v3M8 11.5v3M1.5 8h3M11.5 8h3',
  chevronRight: 'M6 3.5L10.5 8 6 12.5',
  chevronDown: 'M3.5 6L8 10.5 12.5 6',
  arrowLeft: 'M13 8H3M7 4L3 8l4 4',
  file: 'M4 1.5h5.5L12.5 4.5v10H4zM9.5 1.5v3h3',
  save: 'M3 2.5h8l2.5 2.5v8.5H3zM5.5 2.5v3.5h5V2.5M5 13.5V9.5h6v4',
  forward: 'M1.5 8h9M7.5 4.5L11 8l-3.5 3.5M13.5 3v10',
  sessions: 'M2 12.5l3-4 3 2 3-5 3 3M2 2.5v11h12',
  logs: 'M3 2.5h10v11H3zM5.5 5.5h5M5.5 8h5M5.5 10.5h3',
  stats: 'M3 13.5V9M6.5 13.5V5M10 13.5V7.5M13.5 13.5V3',
  split: 'M2 3h12v10H2zM8 3v10',
  record: 'M8 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z',
  external: 'M9.5 2.5h4v4M13.5 2.5L7 9M11.5 9.5v4h-9v-9h4',
  /* A key with a Tab arrow: "Tab moves focus". */
  keyboard: 'M1.5 4.5h13v7h-13zM4 8h7M9 6l2 2-2 2M12.5 6v4',
  menu: 'M2.5 4h11M2.5 8h11M2.5 12h11',
} as const;

export type IconName = keyof typeof paths;

export function Icon({
  name,
  size = 16,
  label,
  className,
}: {
  name: IconName;
  size?: number;
  /** Only for an icon that stands alone and means something. */
  label?: string;
  className?: string;
}) {
  return (
    <svg
      className={className === undefined ? 'icon' : `icon ${className}`}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.4}
      strokeLinecap="round"
      strokeLinejoin="round"
      role={label === undefined ? undefined : 'img'}
      aria-hidden={label === undefined ? true : undefined}
      aria-label={label}
    >
      <path d={paths[name]} />
    </svg>
  );
}
