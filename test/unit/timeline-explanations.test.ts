import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explain, type ExplanationContext } from '../../src/resources/subscriber-timeline/explanations.ts';

const context: ExplanationContext = {
  homeNetworkKeys: [
    { id: 1, scheme: 'A' },
    { id: 3, scheme: 'A' },
    { id: 2, scheme: 'B' },
  ],
  profileName: 'default',
  policies: [{ name: 'default', dataNetworkName: 'internet', sliceName: 'default' }],
};

const reject = (details: Record<string, unknown>) =>
  explain({ event: 'Registration Reject', level: 'warn', details }, context);

describe('timeline explanations', () => {
  it('names the home network key a SUCI asks for and the keys of its profile this core has (#7)', () => {
    // suci-0-<mcc>-<mnc>-<routing indicator>-<scheme: 1 Profile A>-<key id>-<output> (TS 23.003 2.2B).
    assert.match(
      reject({ suci: 'suci-0-001-01-0000-1-2-00aa', cause: '5GS services not allowed (7)' }) ?? '',
      /^The SUCI names home network key 2 \(Profile A\); this core has Profile A keys 1 and 3, so/,
    );
    assert.match(
      reject({ suci: 'suci-0-001-01-0000-2-5-00aa', cause: '5GS services not allowed (7)' }) ?? '',
      /home network key 5 \(Profile B\); this core has Profile B key 2,/,
    );
  });

  it('does not blame a key the core has, nor the null scheme, for #7', () => {
    for (const suci of ['suci-0-001-01-0000-1-3-00aa', 'suci-0-001-01-0000-0-0-0000000001']) {
      const text = reject({ suci, cause: '5GS services not allowed (7)' }) ?? '';
      assert.match(text, /no subscriber of this network/, suci);
      assert.doesNotMatch(text, /home network key/, suci);
    }
  });

  it('explains nothing for a message that is no failure, and falls back to the cause it carries', () => {
    assert.equal(explain({ event: 'Registration Accept', level: 'info', details: {} }, context), undefined);
    assert.equal(
      explain({ event: 'Service Reject', level: 'warn', details: { cause: 'Congestion (22)' } }, context),
      'Service Reject: Congestion (22) (TS 24.501 9.11.3.2, 9.11.4.2).',
    );
  });

  it('tells apart the causes of a Security Mode Reject and points #26 at the user plane and the pools', () => {
    const smc = (cause: string) =>
      explain({ event: 'Security Mode Reject', level: 'warn', details: { cause } }, context) ?? '';
    assert.match(smc('UE security capabilities mismatch (23)'), /capabilities the core replayed differ/);
    assert.match(smc('Security mode rejected, unspecified (24)'), /could not use the algorithms chosen/);
    const session = explain(
      {
        event: 'PDU Session Establishment Reject',
        level: 'warn',
        details: { pdu_session_id: 2, cause: 'Insufficient resources (26)' },
      },
      context,
    );
    assert.match(session ?? '', /^PDU session 2 refused for lack of resources: the user plane \(UPF\)/);
  });
});
