import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSmf } from '../../../src/network/smf/smf.ts';
import { createMemoryAddressLeases } from '../../../src/network/working-state/memory-address-leases.ts';
import { createMemoryTunnelEndpointIds } from '../../../src/network/working-state/memory-tunnel-endpoints.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { defaultSubscription, inMemorySmfPorts } from '../../helpers/smf-ports.ts';

const SUPI = '001010000000001';

/** The SMF takes a session's address and TEID through the working-state ports (docs/sessions.md). */
describe('SMF: address and TEID leases (network.md 6)', () => {
  function harness() {
    const ports = inMemorySmfPorts(new ManualTime(), () => defaultSubscription(SUPI));
    const addressLeases = createMemoryAddressLeases();
    const teids = createMemoryTunnelEndpointIds();
    const smf = createSmf({ ...ports.options, addressLeases, teids });
    const context = {
      supi: SUPI,
      allowedNssai: [{ sst: 1 }],
      requestType: 1,
      dnn: 'internet',
      sNssai: { sst: 1 },
    };
    const request = (pti: number) =>
      smf.uplink(context, {
        messageType: 'pduSessionEstablishmentRequest',
        pduSessionId: 5,
        pti,
        integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
        pduSessionType: 1,
      });
    return { smf, addressLeases, teids, request };
  }

  it('a session holds one address and one TEID from the ports, given back when it goes', async () => {
    const { smf, addressLeases, teids, request } = harness();
    await request(1);
    assert.equal(addressLeases.held, 1);
    assert.equal(teids.held, 1);
    smf.ueGone(SUPI);
    await Promise.resolve();
    assert.equal(addressLeases.held, 0);
    assert.equal(teids.held, 0);
  });

  it('a retransmission served while the first request took its leases leaves one of each held', async () => {
    const { smf, addressLeases, teids, request } = harness();
    await Promise.all([request(1), request(1)]);
    assert.equal(smf.sessionsOf(SUPI).length, 1);
    assert.equal(addressLeases.held, 1, 'the request that lost gave its address back');
    assert.equal(teids.held, 1, 'and its TEID');
  });
});
