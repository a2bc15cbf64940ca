import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitStringOf } from '../../../src/network/asn1/bit-string.ts';
import { createLmf } from '../../../src/network/lmf/lmf.ts';
import { decodeLppMessage, encodeLppMessage } from '../../../src/network/lmf/lpp-codec.ts';
import { namedBits } from '../../../src/network/lmf/lpp-messages.ts';
import { decodeNrppaPdu, encodeNrppaPdu } from '../../../src/network/lmf/nrppa-codec.ts';
import { ecidEstimate } from '../../../src/network/lmf/ecid-estimate.ts';
import { timingAdvanceDistance } from '../../../src/network/lmf/measurement-mapping.ts';
import type { LPPMessage } from '../../../src/network/lpp/generated/types.ts';
import { plmnIdentity } from '../../../src/network/ngap/ngap-values.ts';
import type { NRPPAPDU } from '../../../src/network/nrppa/generated/types.ts';
import { manualClock } from '../../helpers/test-app.ts';
import { tshark } from '../../helpers/tshark.ts';

const IMSI = '001010000000001';

/** The LMF over a transport that records what it sends and reaches the device at once. */
function harness(reachable = true) {
  const clock = manualClock();
  const nrppa: Uint8Array[] = [];
  const lpp: Uint8Array[] = [];
  const lmf = createLmf({
    transport: {
      reach: async () => reachable,
      sendNrppa: (_imsi, pdu) => nrppa.push(pdu) > 0,
      sendLpp: (_imsi, message) => lpp.push(message) > 0,
    },
    timers: clock,
  });
  return { clock, nrppa, lpp, lmf };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** E-CID Measurement Initiation Response (TS 38.455 9.1.1.2) of an NR cell with NR-TADV and AoA. */
function ecidResponse(request: NRPPAPDU, tadv: number): NRPPAPDU {
  assert.ok(request.choice === 'initiatingMessage' && request.value.name === 'e-CIDMeasurementInitiation');
  const id = request.value.value.protocolIEs.find((ie) => ie.name === 'LMF-UE-Measurement-ID')
    ?.value as number;
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 2,
      name: 'e-CIDMeasurementInitiation',
      criticality: 'reject',
      nrppatransactionID: request.value.nrppatransactionID,
      value: {
        protocolIEs: [
          { id: 2, name: 'LMF-UE-Measurement-ID', criticality: 'reject', value: id },
          { id: 6, name: 'RAN-UE-Measurement-ID', criticality: 'reject', value: 7 },
          {
            id: 7,
            name: 'E-CID-MeasurementResult',
            criticality: 'ignore',
            value: {
              servingCellID: {
                pLMNIdentity: plmnIdentity('001', '01'),
                nGRANcell: { choice: 'nR-CellID', value: bitStringOf(0x1f, 36) },
              },
              servingCellTAC: Uint8Array.of(0, 0, 1),
              measuredResults: [
                {
                  choice: 'choice-Extension',
                  value: { id: 94, name: 'NR-TADV', criticality: 'ignore', value: tadv },
                },
                {
                  choice: 'choice-Extension',
                  value: {
                    id: 32,
                    name: 'ResultSS-RSRP',
                    criticality: 'ignore',
                    value: [
                      {
                        nRPCI: 17,
                        nRARFCN: 632628,
                        valueSSRSRPCell: 70,
                        sSRSRPPerSSB: [{ sSBIndex: 3, valueSSRSRP: 72 }],
                      },
                    ],
                  },
                },
                {
                  choice: 'choice-Extension',
                  value: {
                    id: 33,
                    name: 'ResultSS-RSRQ',
                    criticality: 'ignore',
                    value: [
                      {
                        nRPCI: 17,
                        nRARFCN: 632628,
                        valueSSRSRQCell: 60,
                        sSRSRQPerSSB: [{ sSBIndex: 3, valueSSRSRQ: 62 }],
                      },
                    ],
                  },
                },
              ],
            },
          },
        ],
      },
    },
  };
}

/** The device's LPP answer in the transaction of `request`. */
function answer(request: Uint8Array, body: LPPMessage['lppMessageBody']): Uint8Array {
  const decoded = decodeLppMessage(request);
  assert.ok(decoded.ok);
  return encodeLppMessage({
    transactionID: {
      initiator: 'locationServer',
      transactionNumber: decoded.value.transactionID!.transactionNumber,
    },
    endTransaction: true,
    lppMessageBody: body,
  });
}

describe('LMF: E-CID network based over NRPPa', () => {
  it('sends E-CID Measurement Initiation (on demand) and takes the answer with the same measurement id', async () => {
    const h = harness();
    const pending = h.lmf.ecidNetwork(IMSI, 'nr');
    await turn();
    assert.equal(h.nrppa.length, 1);
    const request = decodeNrppaPdu(h.nrppa[0]!);
    assert.ok(request.ok);
    const [verdict] = await tshark('nrppa', h.nrppa);
    assert.equal(verdict?.malformed, false, verdict?.expert);
    assert.match(verdict?.info ?? '', /e-CIDMeasurementInitiation/);
    // Another measurement id is not this answer; garbage is dropped without a throw.
    h.lmf.nrppaReceived(IMSI, Uint8Array.of(0xff, 0x00, 0x13));
    h.lmf.nrppaReceived('001010000000002', encodeNrppaPdu(ecidResponse(request.value, 100)));
    h.lmf.nrppaReceived(IMSI, encodeNrppaPdu(ecidResponse(request.value, 100)));
    const outcome = await pending;
    assert.ok(outcome.ok);
    assert.equal(outcome.report.timingAdvance, 100);
    assert.deepEqual(outcome.report.servingCell, {
      rat: 'nr',
      mcc: '001',
      mnc: '01',
      cellIdentity: '00000001f',
    });
    assert.deepEqual(outcome.report.measurements, [
      {
        source: 'NETWORK',
        rat: 'NR',
        serving: true,
        pci: 17,
        arfcn: 632628,
        arfcnType: 'SSB',
        ssRsrp: -87,
        ssRsrq: -13.5,
        ssbBeams: [{ index: 3, rsrp: -85, rsrq: -12.5 }],
      },
    ]);
  });

  it('gives up after 10 s without an answer', async () => {
    const h = harness();
    const pending = h.lmf.ecidNetwork(IMSI, 'eutra');
    await turn();
    h.clock.advance(10_000);
    assert.deepEqual(await pending, { ok: false, reason: 'no E-CID answer from the radio within 10 s' });
  });
});

describe('LMF: E-CID estimate from the timing advance', () => {
  it('puts a device with TADV 100 (200..202 Ts, about 981 m) within the ring around the antenna', () => {
    const { distance, halfWidth } = timingAdvanceDistance(100);
    assert.ok(Math.abs(distance - 980.8) < 1, String(distance));
    assert.ok(Math.abs(halfWidth - 4.88) < 0.01);
    const anchor = { lat: 53.5, lon: 10, uncertainty: 0 };
    assert.deepEqual(ecidEstimate(anchor, { timingAdvance: 100, angleOfArrival: undefined }), {
      ...anchor,
      uncertainty: distance + halfWidth,
    });
    // With an angle of arrival of 90 degrees (counter-clockwise from north): west of the antenna.
    const west = ecidEstimate(anchor, { timingAdvance: 100, angleOfArrival: 90 });
    assert.ok(west && west.lon < anchor.lon && Math.abs(west.lat - anchor.lat) < 1e-6);
    assert.ok(west.uncertainty < distance, 'the angle narrows the circle');
    assert.equal(ecidEstimate(anchor, { timingAdvance: undefined, angleOfArrival: 10 }), undefined);
  });
});

describe('LMF: LPP through the device', () => {
  it('asks capabilities first, then NR E-CID measurements, and returns them as UE measurements', async () => {
    const h = harness();
    const pending = h.lmf.ueEcid(IMSI, 'nr');
    await turn();
    assert.equal(h.lpp.length, 1);
    h.lmf.lppReceived(
      IMSI,
      answer(h.lpp[0]!, {
        choice: 'c1',
        value: {
          choice: 'provideCapabilities',
          value: {
            criticalExtensions: {
              choice: 'c1',
              value: {
                choice: 'provideCapabilities-r9',
                value: { nrECIDProvideCapabilitiesR16: { nrECIDMeasSupportedR16: namedBits([0, 1], 4) } },
              },
            },
          },
        },
      }),
    );
    await turn();
    assert.equal(h.lpp.length, 2);
    const verdicts = await tshark('lpp', h.lpp);
    for (const verdict of verdicts) assert.equal(verdict.malformed, false, verdict.expert);
    h.lmf.lppReceived(
      IMSI,
      answer(h.lpp[1]!, {
        choice: 'c1',
        value: {
          choice: 'provideLocationInformation',
          value: {
            criticalExtensions: {
              choice: 'c1',
              value: {
                choice: 'provideLocationInformation-r9',
                value: {
                  nrECIDProvideLocationInformationR16: {
                    nrECIDSignalMeasurementInformationR16: {
                      nrPrimaryCellMeasuredResultsR16: {
                        nrPhysCellIDR16: 17,
                        nrARFCNR16: { choice: 'ssb-ARFCN-r16', value: 632628 },
                        resultsSSBCellR16: { nrRSRPR16: 70, nrRSRQR16: 60 },
                      },
                      nrMeasuredResultsListR16: [
                        {
                          nrPhysCellIDR16: 18,
                          nrARFCNR16: { choice: 'ssb-ARFCN-r16', value: 632628 },
                          resultsSSBCellR16: { nrRSRPR16: 50 },
                        },
                      ],
                    },
                  },
                },
              },
            },
          },
        },
      }),
    );
    const outcome = await pending;
    assert.ok(outcome.ok);
    assert.deepEqual(
      outcome.measurements.map((m) => [m.source, m.serving, m.pci, m.ssRsrp, m.ssRsrq]),
      [
        ['UE', true, 17, -87, -13.5],
        ['UE', false, 18, -107, undefined],
      ],
    );
  });

  it('says a device without standalone GNSS cannot serve gnss', async () => {
    const h = harness();
    const pending = h.lmf.gnss(IMSI);
    await turn();
    h.lmf.lppReceived(
      IMSI,
      answer(h.lpp[0]!, {
        choice: 'c1',
        value: {
          choice: 'provideCapabilities',
          value: {
            criticalExtensions: { choice: 'c1', value: { choice: 'provideCapabilities-r9', value: {} } },
          },
        },
      }),
    );
    const outcome = await pending;
    assert.ok(!outcome.ok && outcome.incapable);
    assert.match(outcome.reason, /does not support standalone GNSS/);
  });

  it('times out after 20 s without an LPP answer, and an unreachable device fails at once', async () => {
    const h = harness();
    const pending = h.lmf.gnss(IMSI);
    await turn();
    h.clock.advance(20_000);
    assert.deepEqual(await pending, {
      ok: false,
      incapable: false,
      reason: 'no LPP answer from the device within 20 s',
    });
    const idle = harness(false);
    const unreachable = await idle.lmf.gnss(IMSI);
    assert.ok(!unreachable.ok && !unreachable.incapable && idle.lpp.length === 0);
  });
});
