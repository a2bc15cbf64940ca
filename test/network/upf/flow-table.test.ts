import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlowCount } from '../../../src/network/upf/flow-records.ts';
import { createFlowTable } from '../../../src/network/upf/flow-table.ts';

const flow = (overrides: Partial<FlowCount> = {}): FlowCount => ({
  sessionId: 1,
  sourceIp: '10.45.0.2',
  destinationIp: '10.99.0.1',
  sourcePort: 40000,
  destinationPort: 443,
  protocol: 6,
  direction: 'uplink',
  action: 'allow',
  packets: 1,
  bytes: 60,
  ...overrides,
});

describe('flow table (network.md 7)', () => {
  it('reports a flow once it has had no packets for 30 s, with its totals', () => {
    const table = createFlowTable();
    table.add([flow()], 1_000, 0);
    table.add([flow({ packets: 2, bytes: 120 })], 5_000, 1_000);
    assert.deepEqual(table.expire(34_999), []);
    const [ended] = table.expire(35_000);
    assert.deepEqual([ended?.packets, ended?.bytes, ended?.startTime, ended?.endTime], [3, 180, 0, 5_000]);
    assert.equal(table.size, 0);
  });

  it('reports a flow active for 30 min and starts a new one with the next packets', () => {
    const table = createFlowTable();
    let now = 0;
    for (; now <= 30 * 60_000; now += 10_000) {
      table.add([flow()], now, now - 10_000);
      const ended = table.expire(now);
      if (ended.length > 0) {
        assert.equal(ended[0]?.startTime, -10_000);
        assert.equal(ended[0]?.endTime, now);
        break;
      }
    }
    assert.equal(now, 30 * 60_000 - 10_000);
    table.add([flow()], now + 10_000, now);
    assert.equal(table.size, 1);
  });

  it('keeps flows apart by direction, action and ports, and hands a session’s flows over at release', () => {
    const table = createFlowTable();
    table.add(
      [
        flow(),
        flow({ direction: 'downlink', sourceIp: '10.99.0.1', destinationIp: '10.45.0.2' }),
        flow({ action: 'drop' }),
        flow({ sourcePort: 40001 }),
        flow({ sessionId: 2 }),
      ],
      1_000,
      0,
    );
    assert.equal(table.size, 5);
    assert.equal(table.takeSession(1).length, 4);
    assert.deepEqual(
      table.takeSession(2).map((f) => f.sessionId),
      [2],
    );
    assert.equal(table.size, 0);
  });
});
