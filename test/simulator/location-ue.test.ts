// The simulated UE as an LPP target device (TS 37.355) over DL/UL NAS Transport (TS 24.501 5.4.5): the
// location server's messages of docs/location.md go in, the answers come out protected, are decoded with
// the generated LPP codec and read by tshark.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitStringOf } from '../../src/network/asn1/bit-string.ts';
import { decodeComplete, encodeComplete } from '../../src/network/asn1/complete.ts';
import { decodeLPPMessage, encodeLPPMessage } from '../../src/network/lpp/generated/codec.ts';
import type { LPPMessage, LPPMessageBody_c1 } from '../../src/network/lpp/generated/types.ts';
import { encodeNasMessage } from '../../src/network/nas/message-codec.ts';
import type { NasMessageOf } from '../../src/network/nas/message-codec.ts';
import { SECURITY_HEADER_TYPE } from '../../src/network/nas/security-header.ts';
import { protect } from '../../src/network/nas-security/index.ts';
import type { RRCEstablishmentCause } from '../../src/network/ngap/generated/types.ts';
import type { FiveGSTmsi, ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { ALL_ALGORITHMS } from '../../src/simulator/ue/ue-config.ts';
import { answerLpp } from '../../src/simulator/ue/ue-lpp.ts';
import type { UePositioning } from '../../src/simulator/ue/ue-positioning.ts';
import type { RadioUe, RrcConnection, UeRadio } from '../../src/simulator/ue/ue-radio.ts';
import { tsharkTree } from '../helpers/tshark.ts';
import type { NetworkAction } from './fake-nas-amf.ts';
import { FakeNasAmf, PLMN } from './fake-nas-amf.ts';

const IMSI = '001010000000001';
const K = Buffer.from('465b5ce8b199b49faa5f0a2ee238a6bc', 'hex');
const OPC = Buffer.from('e8ed289deba952e4283b54e88e6183ca', 'hex');
const NR_CELL: ServingCell = { plmn: PLMN, nrCellIdentity: 0x4001, tac: 1 };
const EUTRA_CELL: ServingCell = { plmn: PLMN, eutraCellIdentity: 0x1234567, tac: 1 };
/** 2026-11-24T12:00:01.234Z: 1234 ms into the GNSS hour (TOD in ms within the hour). */
const NOW = Date.UTC(2026, 10, 24, 12, 0, 1, 234);

const POSITIONING: UePositioning = {
  capabilities: { nrEcid: true, ecid: true, agnss: true },
  nrCells: [
    {
      pci: 101,
      ssbArfcn: 632628,
      ssRsrpDbm: -85,
      ssRsrqDb: -10.5,
      ssbBeams: [
        { index: 3, rsrpDbm: -84, rsrqDb: -10 },
        { index: 4, rsrpDbm: -91, rsrqDb: -12 },
      ],
    },
    { pci: 102, ssbArfcn: 632628, ssRsrpDbm: -101, ssRsrqDb: -15 },
  ],
  eutraCells: [
    { pci: 7, earfcn: 1300, rsrpDbm: -95, rsrqDb: -9 },
    { pci: 8, earfcn: 1300, rsrpDbm: -110, rsrqDb: -14.5 },
  ],
  gnss: { kind: 'fix', latitude: 53.5461, longitude: -9.9661, uncertaintyMetres: 12 },
};

/** The location server's messages as docs/location.md lists them. */
const server = (transactionNumber: number, body: LPPMessageBody_c1): LPPMessage => ({
  transactionID: { initiator: 'locationServer', transactionNumber },
  endTransaction: false,
  lppMessageBody: { choice: 'c1', value: body },
});

const requestCapabilities = (n: number): LPPMessage =>
  server(n, {
    choice: 'requestCapabilities',
    value: {
      criticalExtensions: {
        choice: 'c1',
        value: {
          choice: 'requestCapabilities-r9',
          value: {
            nrECIDRequestCapabilitiesR16: {},
            ecidRequestCapabilities: {},
            aGnssRequestCapabilities: {
              gnssSupportListReq: true,
              assistanceDataSupportListReq: false,
              locationVelocityTypesReq: false,
            },
          },
        },
      },
    },
  });

type Method = 'nr-ecid' | 'ecid' | 'gnss';

function requestLocation(n: number, method: Method): LPPMessage {
  const ies =
    method === 'nr-ecid'
      ? {
          commonIEsRequestLocationInformation: { locationInformationType: 'locationMeasurementsRequired' },
          nrECIDRequestLocationInformationR16: { requestedMeasurementsR16: bitStringOf(0b11, 2) },
        }
      : method === 'ecid'
        ? {
            commonIEsRequestLocationInformation: { locationInformationType: 'locationMeasurementsRequired' },
            ecidRequestLocationInformation: { requestedMeasurements: bitStringOf(0b111, 3) },
          }
        : {
            commonIEsRequestLocationInformation: { locationInformationType: 'locationEstimateRequired' },
            aGnssRequestLocationInformation: {
              gnssPositioningInstructions: {
                gnssMethods: { gnssIds: bitStringOf(1, 1) },
                fineTimeAssistanceMeasReq: false,
                adrMeasReq: false,
                multiFreqMeasReq: false,
                assistanceAvailability: false,
              },
            },
          };
  return server(n, {
    choice: 'requestLocationInformation',
    value: {
      criticalExtensions: {
        choice: 'c1',
        value: { choice: 'requestLocationInformation-r9', value: ies as never },
      },
    },
  });
}

/** Decoded values carry absent OPTIONAL fields as undefined keys: compare what JSON keeps. */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const same = (actual: unknown, expected: unknown): void => assert.deepEqual(json(actual), json(expected));

const encode = (message: LPPMessage): Uint8Array => encodeComplete(message, false, encodeLPPMessage);

function decode(bytes: Uint8Array): LPPMessage {
  const decoded = decodeComplete(bytes, false, decodeLPPMessage);
  assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
  return decoded.value;
}

function answer(request: LPPMessage, positioning = POSITIONING, cell = NR_CELL): LPPMessage | undefined {
  const reply = answerLpp(encode(request), positioning, { cell, nowMs: NOW });
  // What the device sends must survive its own encoding: the codec checks every constraint.
  return reply === undefined ? undefined : decode(encode(reply));
}

/** The r9 IEs of a Provide Capabilities or Provide Location Information. */
function provided(
  message: LPPMessage | undefined,
  kind: 'provideCapabilities' | 'provideLocationInformation',
) {
  assert.ok(message?.lppMessageBody?.choice === 'c1');
  const body = message.lppMessageBody.value;
  assert.equal(body.choice, kind);
  const extensions = (body.value as { criticalExtensions: { choice: string; value: { value: unknown } } })
    .criticalExtensions;
  assert.equal(extensions.choice, 'c1');
  return extensions.value.value as Record<string, unknown>;
}

describe('simulated UE: LPP target device', () => {
  it('Provide Capabilities in the same transaction, ending it: NR-ECID SS-RSRP/RSRQ, E-CID RSRP/RSRQ, GPS standalone', () => {
    const reply = answer(requestCapabilities(9));
    same(reply?.transactionID, { initiator: 'locationServer', transactionNumber: 9 });
    assert.equal(reply?.endTransaction, true);
    const ies = provided(reply, 'provideCapabilities');
    same(ies.nrECIDProvideCapabilitiesR16, { nrECIDMeasSupportedR16: bitStringOf(0b11, 2) });
    same(ies.ecidProvideCapabilities, { ecidMeasSupported: bitStringOf(0b11, 2) });
    const gnss = ies.aGnssProvideCapabilities as {
      gnssSupportList: { agnssModes: unknown; gnssID: unknown }[];
    };
    same(gnss.gnssSupportList[0]?.gnssID, { gnssId: 'gps' });
    same(gnss.gnssSupportList[0]?.agnssModes, { posModes: bitStringOf(1, 1) });
  });

  it('a device without a method leaves it out of its capabilities', () => {
    const ies = provided(
      answer(requestCapabilities(1), {
        ...POSITIONING,
        capabilities: { nrEcid: false, ecid: true, agnss: false },
      }),
      'provideCapabilities',
    );
    assert.deepEqual(Object.keys(json(ies) as object), ['ecidProvideCapabilities']);
  });

  it('NR-ECID: serving cell with its NCGI, SSB beams and a neighbour, as TS 38.133 reported values', () => {
    const reply = answer(requestLocation(10, 'nr-ecid'));
    assert.equal(reply?.endTransaction, true);
    const ies = provided(reply, 'provideLocationInformation');
    same(ies.nrECIDProvideLocationInformationR16, {
      nrECIDSignalMeasurementInformationR16: {
        nrPrimaryCellMeasuredResultsR16: {
          nrPhysCellIDR16: 101,
          nrARFCNR16: { choice: 'ssb-ARFCN-r16', value: 632628 },
          nrCellGlobalIDR16: {
            mccR15: [0, 0, 1],
            mncR15: [0, 1],
            nrCellidentityR15: bitStringOf(0x4001, 36),
          },
          // -85 dBm: SS-RSRP_72 (-85 <= RSRP < -84); -10.5 dB: SS-RSRQ_66 (-10.5 <= RSRQ < -10).
          resultsSSBCellR16: { nrRSRPR16: 72, nrRSRQR16: 66 },
          resultsSSBIndexesR16: [
            { ssbIndexR16: 3, ssbResultsR16: { nrRSRPR16: 73, nrRSRQR16: 67 } },
            { ssbIndexR16: 4, ssbResultsR16: { nrRSRPR16: 66, nrRSRQR16: 63 } },
          ],
        },
        nrMeasuredResultsListR16: [
          {
            nrPhysCellIDR16: 102,
            nrARFCNR16: { choice: 'ssb-ARFCN-r16', value: 632628 },
            resultsSSBCellR16: { nrRSRPR16: 56, nrRSRQR16: 57 },
          },
        ],
      },
    });
  });

  it('E-CID on an ng-eNB: primary cell with its ECGI, neighbours, TS 36.133 reported values', () => {
    const ies = provided(
      answer(requestLocation(11, 'ecid'), POSITIONING, EUTRA_CELL),
      'provideLocationInformation',
    );
    same(ies.ecidProvideLocationInformation, {
      ecidSignalMeasurementInformation: {
        primaryCellMeasuredResults: {
          physCellId: 7,
          cellGlobalId: {
            plmnIdentity: { mcc: [0, 0, 1], mnc: [0, 1] },
            cellIdentity: { choice: 'eutra', value: bitStringOf(0x1234567, 28) },
          },
          arfcnEUTRA: 1300,
          // -95 dBm: RSRP_46 (-95 <= RSRP < -94); -9 dB: RSRQ_22 (-9 <= RSRQ < -8.5).
          rsrpResult: 46,
          rsrqResult: 22,
        },
        measuredResultsList: [{ physCellId: 8, arfcnEUTRA: 1300, rsrpResult: 31, rsrqResult: 11 }],
      },
    });
  });

  it('GNSS: a point with an uncertainty circle (TS 23.032 codes) and the GPS time of day', () => {
    const ies = provided(answer(requestLocation(12, 'gnss')), 'provideLocationInformation');
    same(ies.commonIEsProvideLocationInformation, {
      locationEstimate: {
        choice: 'ellipsoidPointWithUncertaintyCircle',
        // N = floor(2^23 x 53.5461 / 90) and floor(2^24 x -9.9661 / 360); 12 m: K = 9 (10 (1.1^9 - 1) = 13.6 m).
        value: { latitudeSign: 'north', degreesLatitude: 4990858, degreesLongitude: -464454, uncertainty: 9 },
      },
    });
    same(ies.aGnssProvideLocationInformation, {
      gnssLocationInformation: {
        measurementReferenceTime: { gnssTODMsec: 1234, gnssTimeID: { gnssId: 'gps' } },
        agnssList: { gnssIds: bitStringOf(1, 1) },
      },
    });
  });

  it('GNSS error: positionMethodFailure and not enough satellites; silence: no answer', () => {
    const ies = provided(
      answer(requestLocation(13, 'gnss'), { ...POSITIONING, gnss: { kind: 'error' } }),
      'provideLocationInformation',
    );
    same(ies.commonIEsProvideLocationInformation, {
      locationError: { locationfailurecause: 'positionMethodFailure' },
    });
    same(ies.aGnssProvideLocationInformation, {
      gnssError: {
        choice: 'targetDeviceErrorCauses',
        value: { cause: 'thereWereNotEnoughSatellitesReceived' },
      },
    });
    assert.equal(
      answer(requestLocation(14, 'gnss'), { ...POSITIONING, gnss: { kind: 'silent' } }),
      undefined,
    );
  });

  it('a method the device lacks: the method error, not silence', () => {
    const none: UePositioning = { capabilities: { nrEcid: false, ecid: false, agnss: false } };
    same(provided(answer(requestLocation(15, 'nr-ecid'), none), 'provideLocationInformation'), {
      nrECIDProvideLocationInformationR16: {
        nrECIDErrorR16: {
          choice: 'targetDeviceErrorCauses-r16',
          value: { causeR16: 'requestedMeasurementNotAvailable' },
        },
      },
    });
    same(provided(answer(requestLocation(16, 'gnss'), none), 'provideLocationInformation'), {
      commonIEsProvideLocationInformation: {
        locationError: { locationfailurecause: 'requestedMethodNotSupported' },
      },
    });
  });

  it('garbage is answered by an LPP Error; Abort is not answered', () => {
    const reply = answerLpp(Uint8Array.of(0xff, 0xff, 0xff), POSITIONING, { cell: NR_CELL, nowMs: NOW });
    assert.ok(reply?.lppMessageBody?.choice === 'c1');
    assert.equal(reply.lppMessageBody.value.choice, 'error');
    const abort = server(3, {
      choice: 'abort',
      value: {
        criticalExtensions: {
          choice: 'c1',
          value: { choice: 'abort-r9', value: { commonIEsAbort: { abortCause: 'networkAbort' } } },
        },
      },
    });
    assert.equal(answer(abort), undefined);
  });

  it('fuzz (fixed seed): mutated and truncated requests never throw; every answer encodes', () => {
    let seed = 0x9e3779b9;
    const next = (): number => {
      // xorshift32: the same 3,000 inputs every run.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const valid = [
      requestCapabilities(1),
      requestLocation(2, 'nr-ecid'),
      requestLocation(3, 'ecid'),
      requestLocation(4, 'gnss'),
    ].map(encode);
    let answered = 0;
    for (let i = 0; i < 3000; i++) {
      const base = valid[i % valid.length]!;
      const bytes = Uint8Array.from(base.subarray(0, 1 + (next() % base.length)));
      for (let flips = next() % 4; flips > 0; flips--) bytes[next() % bytes.length]! ^= 1 << (next() % 8);
      const reply = answerLpp(bytes, POSITIONING, { cell: NR_CELL, nowMs: NOW });
      if (reply !== undefined) {
        encode(reply);
        answered++;
      }
    }
    assert.ok(answered > 0);
  });

  it('tshark reads every answer as the intended LPP message, clean', async () => {
    const replies = [
      answer(requestCapabilities(1)),
      answer(requestLocation(2, 'nr-ecid')),
      answer(requestLocation(3, 'ecid'), POSITIONING, EUTRA_CELL),
      answer(requestLocation(4, 'gnss')),
      answer(requestLocation(5, 'gnss'), { ...POSITIONING, gnss: { kind: 'error' } }),
    ];
    const verdicts = await tsharkTree(
      'lpp',
      replies.map((reply) => encode(reply!)),
    );
    same(
      verdicts.map((v) => v.info),
      [
        'Provide Capabilities',
        'Provide Location Information',
        'Provide Location Information',
        'Provide Location Information',
        'Provide Location Information',
      ],
    );
    for (const verdict of verdicts) {
      assert.equal(verdict.malformed, false);
      assert.equal(verdict.expert, '');
    }
    // Wireshark's own reading of the fix: the TS 23.032 codes of the point and its uncertainty.
    const gnss = JSON.stringify(verdicts[3]!.layer);
    for (const field of [
      '"lpp.degreesLatitude":"4990858"',
      '"lpp.degreesLongitude":"-464454"',
      '"lpp.uncertainty":"9"',
      '"lpp.gnss_TOD_msec":"1234"',
    ])
      assert.ok(gnss.includes(field), field);
  });
});

/** Carries NAS between one UE and the stand-in network over one connection, a turn of the loop later. */
class NasRadio implements UeRadio {
  readonly name = 'gnb-lpp';
  readonly cell = NR_CELL;
  #ue: RadioUe | undefined;

  constructor(readonly amf: FakeNasAmf) {}

  establish(ue: RadioUe, nasPdu: Uint8Array, _cause: RRCEstablishmentCause, _sTmsi: FiveGSTmsi | undefined) {
    this.#ue = ue;
    this.#carry(nasPdu);
    const connection: RrcConnection = {
      open: true,
      uplink: (pdu) => {
        this.#carry(pdu);
        return true;
      },
    };
    return connection;
  }

  camp(): void {}
  leave(): void {}

  deliver(actions: NetworkAction[]): void {
    for (const action of actions) {
      if (action.kind === 'nas') this.#ue?.downlink(action.pdu);
      else if (action.kind === 'context-setup') {
        this.#ue?.contextSetUp(action.kgnb);
        this.#ue?.downlink(action.pdu);
      }
    }
  }

  #carry(pdu: Uint8Array): void {
    void this.amf.uplink(pdu).then((actions) => this.deliver(actions));
  }
}

describe('simulated UE: LPP over NAS transport', () => {
  it('DL NAS Transport (payload container type LPP, routing 0x01) -> UL NAS Transport, ciphered, same routing', async () => {
    const amf = new FakeNasAmf({ [IMSI]: { k: K, opc: OPC, sqn: Buffer.alloc(6) } });
    const radio = new NasRadio(amf);
    const ue = new SimulatedUe({
      config: {
        imsi: IMSI,
        plmn: PLMN,
        key: K,
        opc: OPC,
        suci: { scheme: 'null' },
        imeisv: '3569380356438091',
        securityCapability: ALL_ALGORITHMS,
        requestedNssai: [{ sst: 1 }],
        positioning: POSITIONING,
      },
      radio,
    });
    assert.equal((await ue.register()).outcome, 'accepted');
    const context = amf.security;
    assert.ok(context !== undefined);
    const downlink: NasMessageOf<'dlNasTransport'> = {
      messageType: 'dlNasTransport',
      payloadContainerType: 3,
      payloadContainer: encode(requestCapabilities(21)),
      additionalInformation: Uint8Array.of(0x01),
    };
    const uplink = ue.next((e) =>
      e.type === 'nas' && e.exchange.direction === 'uplink' && e.exchange.messageType === 'ulNasTransport'
        ? e.exchange
        : undefined,
    );
    radio.deliver([
      {
        kind: 'nas',
        pdu: protect(context, encodeNasMessage(downlink), SECURITY_HEADER_TYPE.integrityProtectedAndCiphered),
      },
    ]);
    const sent = await uplink;
    assert.equal(sent.pdu[1]! & 0x0f, SECURITY_HEADER_TYPE.integrityProtectedAndCiphered);
    await new Promise((resolve) => setImmediate(resolve));
    const received = amf.received.at(-1);
    assert.ok(received?.messageType === 'ulNasTransport');
    assert.equal(received.payloadContainerType, 3);
    assert.deepEqual([...(received.additionalInformation ?? [])], [0x01]);
    const reply = decode(received.payloadContainer);
    assert.equal(reply.transactionID?.transactionNumber, 21);
    provided(reply, 'provideCapabilities');
  });
});
