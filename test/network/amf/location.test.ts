import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bits, plmnIdentity, tac } from '../../../src/network/ngap/ngap-values.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { tshark } from '../../helpers/tshark.ts';
import { register, settle } from './amf-steps.ts';
import { createAmfHarness, IMSI, TestUe } from './test-ue.ts';

/** LOCATION REPORT (TS 38.413 9.2.9.2) naming NR cell `cell`, as a gNB answers Location Reporting Control. */
function locationReport(ids: { amf: number; ran: number }, cell: number): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 18,
      name: 'LocationReport',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          {
            id: 121,
            name: 'UserLocationInformation',
            criticality: 'ignore',
            value: {
              choice: 'userLocationInformationNR',
              value: {
                nRCGI: { pLMNIdentity: plmnIdentity('001', '01'), nRCellIdentity: bits(cell, 36) },
                tAI: { pLMNIdentity: plmnIdentity('001', '01'), tAC: tac(1) },
              },
            },
          },
          {
            id: 33,
            name: 'LocationReportingRequestType',
            criticality: 'ignore',
            value: { eventType: 'direct', reportArea: 'cell' },
          },
        ],
      },
    },
  };
}

describe('AMF location: Location Reporting Control and NRPPa transport', () => {
  it("asks a connected device's radio for its cell and takes the Location Report into the network state", async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    const from = radio.received.length;
    const refreshed = h.locationServices.refreshServingCell(IMSI);
    await settle(h);
    const sent = radio.received.slice(from);
    assert.deepEqual(
      sent.map((r) => r.messageType),
      ['LocationReportingControl'],
    );
    const request = sent[0]!.pdu;
    assert.ok(request.choice === 'initiatingMessage' && request.value.name === 'LocationReportingControl');
    const requestType = ieValue(request.value.value.protocolIEs, 'LocationReportingRequestType');
    assert.deepEqual([requestType?.eventType, requestType?.reportArea], ['direct', 'cell']);
    radio.send(locationReport(ids, 0x42), 1);
    await settle(h);
    assert.equal(await refreshed, true);
    assert.equal(h.state.subscriber(IMSI).servingCell?.cellIdentity, '000000042');
    assert.equal(h.state.servingCellAge(IMSI), 0);

    // E-CID over NRPPa: Downlink UE Associated NRPPa Transport with the LMF's routing ID.
    const before = radio.received.length;
    const ecid = h.locationServices.ecidNetwork(IMSI, 'nr');
    await settle(h);
    const nrppa = radio.received.slice(before);
    assert.deepEqual(
      nrppa.map((r) => r.messageType),
      ['DownlinkUEAssociatedNRPPaTransport'],
    );
    const verdicts = await tshark(
      'ngap',
      [...sent, ...nrppa].map((r) => r.bytes),
    );
    for (const verdict of verdicts) assert.equal(verdict.malformed, false, verdict.expert);
    h.clock.advance(10_000);
    assert.deepEqual(await ecid, { ok: false, reason: 'no E-CID answer from the radio within 10 s' });
    await h.close();
  });
});
