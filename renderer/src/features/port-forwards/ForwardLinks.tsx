import { memo } from 'react';
import { CopyButton } from '../../app/CopyButton';
import type { LocalUrl } from './entries';

/**
 * A forward's local URL: a plain link that opens in a new window (the Electron shell hands
 * http links to the system browser; browser mode opens a tab), and a copy button.
 */
export const ForwardLink = memo(function ForwardLink({
  url,
  compact = true,
}: {
  url: LocalUrl;
  compact?: boolean;
}) {
  return (
    <span className="forward-link">
      <a
        className="mono"
        href={url.href}
        target="_blank"
        rel="noopener noreferrer"
        title={`Open ${url.href} (pod port ${url.remotePort}); listening on ${url.listen}`}
        onMouseDown={(event) => event.stopPropagation()}
      >
        {url.href.replace(/^http:\/\//, '')}
      </a>
      <CopyButton text={url.href} what={`the URL ${url.href}`} compact={compact} label="Copy URL" />
    </span>
  );
});
