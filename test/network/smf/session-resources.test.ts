import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { UserPlane } from '../../../src/network/smf/smf.ts';
import { SessionResources } from '../../../src/network/smf/session-resources.ts';
import { createSmf } from '../../../src/network/smf/smf.ts';
import { createMemoryAddressLeases } from '../../../src/network/working-state/memory-address-leases.ts';
import { createMemoryTunnelEndpointIds } from '../../../src/network/working-state/memory-tunnel-endpoints.ts';
import { ManualTime } from '../../helpers/manual-time.ts';
import { defaultSubscription, inMemorySmfPorts } from '../../helpers/smf-ports.ts';

const SUPI = '001010000000001';
const AMBR = { uplinkBps: 1000, downlinkBps: 1000 };

/** In-memory leases and a UPF that count what is given back. */
function stores() {
  const addresses = createMemoryAddressLeases();
  const teids = createMemoryTunnelEndpointIds();
  const freed: string[] = [];
  let upfId = 0;
  const userPlane: UserPlane = {
    n3Address: '127.0.0.1',
    establishSession: (r) => ({
      ok: true,
      value: {
        id: ++upfId,
        imsi: r.imsi,
        uplinkTeid: r.uplinkTeid,
        ambr: r.ambr,
        userPlane: { state: 'inactive' },
      },
    }),
    updateDownlink: () => ({ ok: true, value: undefined }),
    deactivate: () => ({ ok: true, value: undefined }),
    modifyAmbr: () => ({ ok: true, value: undefined }),
    release: (id) => (freed.push(`upf ${id}`), { ok: true, value: undefined }),
  };
  const counted = {
    addresses: {
      lease: addresses.lease.bind(addresses),
      hold: addresses.hold.bind(addresses),
      release: (address: string) => (freed.push(`address ${address}`), addresses.release(address)),
      forgo: addresses.forgo.bind(addresses),
      get held() {
        return addresses.held;
      },
    },
    teids: {
      allocate: teids.allocate.bind(teids),
      release: (teid: number) => (freed.push('teid'), teids.release(teid)),
      get held() {
        return teids.held;
      },
    },
  };
  return { ...counted, userPlane, freed, logger: pino({ level: 'silent' }) };
}

/** Lets the leases' release promises settle. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('SMF session resources: released once', () => {
  it('logs nothing when the UPF stopped first (its rules went with it) and still gives the rest back', async () => {
    const s = stores();
    const errors: unknown[] = [];
    const resources = new SessionResources(
      {
        ...s,
        userPlane: { ...s.userPlane, release: () => ({ ok: false, error: 'not-started' }) },
        logger: pino({ level: 'error' }, { write: (line: string) => void errors.push(line) }),
      },
      { supi: SUPI, pduSessionId: 5 },
    );
    assert.equal(await resources.leaseAddress('ipv4', '10.0.0.0/24'), true);
    assert.equal(await resources.allocateTeid(), true);
    assert.equal(resources.installUpfSession({ imsi: SUPI, ambr: AMBR }).ok, true);
    assert.equal(resources.release(), true);
    await settled();
    assert.deepEqual(errors, []);
    assert.deepEqual(s.freed, ['teid', 'address 10.0.0.1']);
  });

  it('gives back the UPF session, the TEID and both addresses on the first release only', async () => {
    const s = stores();
    const resources = new SessionResources(s, { supi: SUPI, pduSessionId: 5 });
    assert.equal(await resources.leaseAddress('ipv4', '10.0.0.0/24'), true);
    assert.equal(await resources.leaseAddress('ipv6', '2001:db8::/48'), true);
    assert.equal(await resources.allocateTeid(), true);
    assert.equal(resources.installUpfSession({ imsi: SUPI, ambr: AMBR }).ok, true);
    assert.equal(s.addresses.held, 2);
    assert.equal(s.teids.held, 1);

    assert.equal(resources.release(), true);
    assert.equal(resources.release(), false);
    await settled();
    assert.deepEqual(s.freed, ['upf 1', 'teid', 'address 10.0.0.1', 'address 2001:db8::']);
    assert.equal(s.addresses.held, 0);
    assert.equal(s.teids.held, 0);
    assert.equal(resources.released, true);
  });

  it('an establishment that stops half-way frees what it took, once', async () => {
    const s = stores();
    const resources = new SessionResources(s, { supi: SUPI, pduSessionId: 5 });
    await resources.leaseAddress('ipv4', '10.0.0.0/24');
    resources.release();
    resources.release();
    await settled();
    assert.deepEqual(s.freed, ['address 10.0.0.1']);
    assert.throws(() => resources.uplinkTeid, /without its uplink TEID/);
  });

  it('a lease that arrives after the release is given back at once', async () => {
    const s = stores();
    const resources = new SessionResources(s, { supi: SUPI, pduSessionId: 5 });
    const leasing = resources.leaseAddress('ipv4', '10.0.0.0/24');
    resources.release();
    assert.equal(await leasing, false);
    await settled();
    assert.equal(s.addresses.held, 0);
    assert.equal(resources.ipv4, undefined);
  });

  it('a session released by the network, then by deregistration, frees its resources and is reported once', async () => {
    const time = new ManualTime();
    const ports = inMemorySmfPorts(time, () => defaultSubscription(SUPI));
    const s = stores();
    const smf = createSmf({ ...ports.options, addressLeases: s.addresses, teids: s.teids });
    const ue = {
      supi: SUPI,
      allowedNssai: [{ sst: 1 }],
      requestType: 1,
      dnn: 'internet',
      sNssai: { sst: 1 },
    };
    await smf.uplink(ue, {
      messageType: 'pduSessionEstablishmentRequest',
      pduSessionId: 5,
      pti: 1,
      integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
      pduSessionType: 1,
    });
    // UE-requested release: Release Command sent, resources freed, T3592 running.
    await smf.uplink(ue, { messageType: 'pduSessionReleaseRequest', pduSessionId: 5, pti: 2 });
    assert.deepEqual(smf.sessionsOf(SUPI), [{ pduSessionId: 5, state: 'releasing' }]);
    smf.ueGone(SUPI);
    await settled();
    assert.deepEqual(s.freed, ['teid', 'address 10.0.0.1']);
    assert.deepEqual(ports.released, [5], 'one session.released event');
    assert.deepEqual(
      ports.upf.filter((call) => call.startsWith('release')),
      ['release 1'],
    );
    assert.deepEqual(smf.counts(), { sessions: 0, addresses: 0, teids: 0 });
  });

  it('the SMF stopping releases the rules and the TEID of every session but keeps its address leased', async () => {
    // Where the AMF set runs the UE context records still name it: the member taking the UE over
    // holds it (docs/amf-set.md, "Lease reclamation").
    const time = new ManualTime();
    const ports = inMemorySmfPorts(time, () => defaultSubscription(SUPI));
    const s = stores();
    const smf = createSmf({ ...ports.options, addressLeases: s.addresses, teids: s.teids });
    const ue = {
      supi: SUPI,
      allowedNssai: [{ sst: 1 }],
      requestType: 1,
      dnn: 'internet',
      sNssai: { sst: 1 },
    };
    await smf.uplink(ue, {
      messageType: 'pduSessionEstablishmentRequest',
      pduSessionId: 5,
      pti: 1,
      integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
      pduSessionType: 1,
    });
    smf.stop();
    await settled();
    assert.deepEqual(s.freed, ['teid']);
    assert.deepEqual(
      ports.upf.filter((call) => call.startsWith('release')),
      ['release 1'],
    );
    assert.deepEqual(smf.counts(), { sessions: 0, addresses: 1, teids: 0 });
  });
});
