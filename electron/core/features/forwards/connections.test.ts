import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { ConnectionTable, MAX_RECENT_CONNECTIONS } from './connections';

describe('ConnectionTable', () => {
  it('sums live and ended connections, and keeps a bounded history', () => {
    const table = new ConnectionTable();
    const records = Array.from({ length: MAX_RECENT_CONNECTIONS + 10 }, () =>
      table.add(8080, 80, '127.0.0.1:1'),
    );
    for (const record of records) {
      record.bytesIn = 10;
      record.bytesOut = 1;
    }
    const failure = new AppError({ code: 'unavailable', message: 'refused' });
    for (const record of records.slice(1)) table.end(record, record.id === 2 ? failure : undefined);
    expect(table.metrics()).toMatchObject({
      openConnections: 1,
      totalConnections: MAX_RECENT_CONNECTIONS + 10,
      failedConnections: 1,
      bytesIn: 10 * (MAX_RECENT_CONNECTIONS + 10),
      bytesOut: MAX_RECENT_CONNECTIONS + 10,
      lastError: { code: 'unavailable', message: 'refused' },
    });
    const listed = table.connections();
    expect(listed).toHaveLength(1 + MAX_RECENT_CONNECTIONS);
    expect(listed[0]).toMatchObject({ id: 1, state: 'waiting' });
    expect(listed[1]).toMatchObject({ id: MAX_RECENT_CONNECTIONS + 10, state: 'closed' });
  });
});
