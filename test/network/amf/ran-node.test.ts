import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plmnOf } from '../../../src/network/common/plmn-identity.ts';
import { ranNodeOf } from '../../../src/network/amf/n2/ran-node.ts';
import { bits, plmnIdentity } from '../../../src/network/ngap/ngap-values.ts';
import { RADIO_ID_PATTERN } from '../../../src/network/radio-id.ts';

const plmn = plmnIdentity('310', '410');

describe('Global RAN Node ID -> radio id and type (network.md section 2)', () => {
  it('spells gNB, ng-eNB (with the kind of its eNB id) and N3IWF ids', () => {
    assert.deepEqual(
      ranNodeOf({
        choice: 'globalGNB-ID',
        value: { pLMNIdentity: plmn, gNBID: { choice: 'gNB-ID', value: bits(1, 22) } },
      }),
      { id: '310:410:000001', ranNodeType: 'gNB', plmn: { mcc: '310', mnc: '410' } },
    );
    const enb = (choice: 'macroNgENB-ID' | 'shortMacroNgENB-ID' | 'longMacroNgENB-ID', length: number) =>
      ranNodeOf({
        choice: 'globalNgENB-ID',
        value: { pLMNIdentity: plmn, ngENBID: { choice, value: bits(0xabc, length) } },
      })?.id;
    assert.deepEqual(
      [enb('macroNgENB-ID', 20), enb('shortMacroNgENB-ID', 18), enb('longMacroNgENB-ID', 21)],
      ['310:410:macro-00abc', '310:410:short-macro-00abc', '310:410:long-macro-000abc'],
    );
    assert.deepEqual(
      ranNodeOf({
        choice: 'globalN3IWF-ID',
        value: { pLMNIdentity: plmn, n3IWFID: { choice: 'n3IWF-ID', value: bits(0x1234, 16) } },
      }),
      { id: '310:410:1234', ranNodeType: 'N3IWF', plmn: { mcc: '310', mnc: '410' } },
    );
    for (const id of ['310:410:000001', '310:410:macro-00abc', '127.0.0.1:38412', '[::1]:38412'])
      assert.match(id, new RegExp(RADIO_ID_PATTERN), id);
  });

  it('reads TBCD PLMN identities with two- and three-digit MNCs, and refuses non-digits', () => {
    assert.deepEqual(plmnOf(plmnIdentity('001', '01')), { mcc: '001', mnc: '01' });
    assert.deepEqual(plmnOf(plmnIdentity('310', '410')), { mcc: '310', mnc: '410' });
    assert.equal(plmnOf(Uint8Array.of(0xff, 0xff, 0xff)), undefined);
    assert.equal(plmnOf(Uint8Array.of(0x00, 0xf1)), undefined);
    assert.equal(
      ranNodeOf({
        choice: 'globalGNB-ID',
        value: {
          pLMNIdentity: Uint8Array.of(0xaa, 0xf1, 0x10),
          gNBID: { choice: 'gNB-ID', value: bits(1, 22) },
        },
      }),
      undefined,
    );
  });
});
