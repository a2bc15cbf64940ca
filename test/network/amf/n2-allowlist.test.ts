import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHarness } from './n2-harness.ts';
import { ngSetupRequest } from './messages.ts';

function refusedCount(text: string): number {
  return Number(/^pmn_n2_peer_problems_total\{kind="peer_not_allowed"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

describe('N2 allowlist (docs/n2.md): who may open an association', () => {
  it('the configured list: a peer outside it is aborted at once, nothing it sends is read or recorded', async () => {
    const h = await createHarness({ allowedPeers: ['10.1.0.0/16', '2001:db8::/32'] });
    const outsider = await h.connect('127.0.0.1');
    // Whatever it had queued behind the handshake is not decoded, answered nor stored.
    assert.throws(() => outsider.send(ngSetupRequest({ gnbId: 1 })), /closed/);
    await h.settled();
    assert.deepEqual(
      outsider.events.map((e) => (e.type === 'communication-lost' ? e.reason : e.type)),
      ['peer-abort'],
    );
    assert.deepEqual([h.radioEvents, h.radioLogs, h.state.radios()], [[], [], []]);
    assert.equal(refusedCount(await h.metrics.render()), 1);

    const member = await h.connect('10.1.2.3');
    member.send(ngSetupRequest({ gnbId: 2 }));
    await h.settled();
    assert.deepEqual(member.types(), ['NGSetupResponse']);
    assert.equal(h.state.radios().length, 1);
    await h.close();
  });

  it('the API list: a change drops connected radios of peers it no longer admits and admits the new ones', async () => {
    const h = await createHarness({ operator: { n2AllowedPeers: ['192.0.2.7'] } });
    const kept = await h.connect('192.0.2.7');
    kept.send(ngSetupRequest({ gnbId: 7, name: 'kept-then-dropped' }));
    const refused = await h.connect('192.0.2.8');
    await h.settled();
    assert.deepEqual(
      h.state.radios().map((r) => r.name),
      ['kept-then-dropped'],
    );
    assert.deepEqual(
      refused.events.map((e) => e.type),
      ['communication-lost'],
    );

    h.operator.configuration.n2AllowedPeers = ['192.0.2.8'];
    h.events.publish({ resource: 'operator', change: 'changed', name: '' });
    await h.settled();
    assert.deepEqual(h.state.radios(), []);
    assert.deepEqual(
      kept.events.map((e) => e.type),
      ['communication-lost'],
    );
    const down = h.radioLogs.find((l) => l.event === 'SCTP Association Down');
    assert.deepEqual(
      [down?.ranId, down?.level, down?.details?.cause],
      ['001:01:000007', 'info', 'peer no longer admitted by the N2 allowlist'],
    );

    const admitted = await h.connect('192.0.2.8');
    admitted.send(ngSetupRequest({ gnbId: 8 }));
    await h.settled();
    assert.deepEqual(admitted.types(), ['NGSetupResponse']);

    // Emptied: every peer is admitted again.
    h.operator.configuration.n2AllowedPeers = [];
    h.events.publish({ resource: 'operator', change: 'changed', name: '' });
    await h.settled();
    const any = await h.connect('198.51.100.1');
    any.send(ngSetupRequest({ gnbId: 9 }));
    await h.settled();
    assert.deepEqual(any.types(), ['NGSetupResponse']);
    await h.close();
  });

  it('both lists: a peer must be in each non-empty one', async () => {
    const h = await createHarness({
      allowedPeers: ['10.0.0.0/8'],
      operator: { n2AllowedPeers: ['10.9.0.0/16'] },
    });
    const inConfigOnly = await h.connect('10.1.0.1');
    const inBoth = await h.connect('10.9.0.1');
    inBoth.send(ngSetupRequest({ gnbId: 1 }));
    await h.settled();
    assert.deepEqual(
      inConfigOnly.events.map((e) => e.type),
      ['communication-lost'],
    );
    assert.deepEqual(inBoth.types(), ['NGSetupResponse']);
    await h.close();
  });
});
