// The simulated NG-RAN node's location side over the fake N2 transport against the scripted AMF: Location
// Reporting Control -> Location Report (TS 38.413 8.12), NRPPa E-CID Measurement Initiation in Downlink UE
// Associated NRPPa Transport -> Uplink UE Associated NRPPa Transport (TS 38.413 8.13, TS 38.455 8.2.1),
// for a gNB and an ng-eNB; every location PDU the node sends is read by tshark (NGAP and the NRPPa inside).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bitStringOf } from '../../src/network/asn1/bit-string.ts';
import { decodeComplete, encodeComplete } from '../../src/network/asn1/complete.ts';
import type { EventType, NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import { ieValue } from '../helpers/ie-value.ts';
import { decodeNRPPAPDU, encodeNRPPAPDU } from '../../src/network/nrppa/generated/codec.ts';
import type { MeasurementQuantitiesValue, NRPPAPDU } from '../../src/network/nrppa/generated/types.ts';
import type { GnbConfig } from '../../src/simulator/gnb-config.ts';
import type { GnbPositioning } from '../../src/simulator/gnb-location.ts';
import { GnbLocation } from '../../src/simulator/gnb-location.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { ServingCell } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { UePositioning } from '../../src/simulator/ue/ue-positioning.ts';
import { NO_POSITIONING } from '../../src/simulator/ue/ue-positioning.ts';
import type { RadioUe } from '../../src/simulator/ue/ue-radio.ts';
import { FakeN2Network } from '../helpers/fake-n2-transport.ts';
import { tshark } from '../helpers/tshark.ts';
import { PLMN } from './fake-nas-amf.ts';
import type { AmfReceived } from './scripted-amf.ts';
import { ScriptedAmf } from './scripted-amf.ts';
import { downlinkNasTransport } from './scripted-ue-network.ts';

const NR_CELL: ServingCell = { plmn: PLMN, nrCellIdentity: 0x4001, tac: 1 };
const NR_CELL_2: ServingCell = { plmn: PLMN, nrCellIdentity: 0x4002, tac: 1 };
const EUTRA_CELL: ServingCell = { plmn: PLMN, eutraCellIdentity: 0x1234567, tac: 1 };
const ACCESS_POINT = { latitude: 53.5461, longitude: 9.9661, altitudeMetres: 30, uncertaintyMetres: 50 };
const AMF_UE_NGAP_ID = 100;
const ROUTING_ID = Uint8Array.of(0x01);
/** NAS the connection carries: a plain 5GMM Status, cause 111 (TS 24.501 8.2.29), which tshark reads. */
const FIVEGMM_STATUS = Uint8Array.of(0x7e, 0x00, 0x64, 0x6f);

/** A device as the radio sees it: no NAS, only what the radio measures of it. */
function device(positioning: UePositioning | undefined): RadioUe {
  return {
    sTmsi: undefined,
    failInitialContextSetup: false,
    positioning,
    downlink: () => undefined,
    contextSetUp: () => undefined,
    released: () => undefined,
    paged: () => undefined,
  };
}

const MEASURED: UePositioning = {
  capabilities: { nrEcid: false, ecid: false, agnss: false },
  radio: { distanceMetres: 500, bearingDegrees: 90, rsrpDbm: -90, rsrqDb: -11 },
};

const LOCATION_PDUS = new Set([
  'LocationReport',
  'LocationReportingFailureIndication',
  'UplinkUEAssociatedNRPPaTransport',
]);
const ngapSeen: Uint8Array[] = [];

async function setup(
  cell: ServingCell,
  positioning: GnbPositioning,
  ue: UePositioning | undefined = MEASURED,
) {
  const network = new FakeN2Network();
  const amf = await ScriptedAmf.listen(network.transport());
  const config: GnbConfig = {
    plmn: PLMN,
    node:
      'eutraCellIdentity' in cell
        ? { kind: 'ng-eNB', variant: 'macro', value: 0x12345 }
        : { kind: 'gNB', value: 1, bitLength: 22 },
    supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
  };
  const gnb = new SimulatedGnb({
    config,
    transport: network.transport(),
    amf: [{ address: '127.0.0.1', port: 38412 }],
  });
  gnb.on((event) => {
    // What this file is about: the node's location PDUs (NG Setup and the rest are checked elsewhere).
    if (event.type === 'sent' && LOCATION_PDUS.has(event.exchange.messageType))
      ngapSeen.push(event.exchange.bytes);
  });
  const ues = new GnbUes(gnb, cell);
  const location = new GnbLocation(ues, positioning);
  await gnb.connect();
  assert.equal((await gnb.ngSetup()).outcome, 'accepted');
  const radioUe = device(ue);
  const initial = amf.next('InitialUEMessage');
  const connection = ues.establish(radioUe, FIVEGMM_STATUS, 'mo-Signalling', undefined);
  assert.ok(connection !== undefined);
  const association = (await initial).association;
  // The AMF's first message names its AMF UE NGAP ID for the connection (TS 38.413 8.6.2).
  amf.send(association, downlinkNasTransport(AMF_UE_NGAP_ID, 1, FIVEGMM_STATUS));
  const send = (pdu: NGAPPDU) => amf.send(association, pdu);
  return { amf, gnb, ues, location, radioUe, connection, send };
}

const ids = (ranUeNgapId = 1) =>
  [
    { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: AMF_UE_NGAP_ID },
    { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ranUeNgapId },
  ] as const;

function locationReportingControl(eventType: EventType, ranUeNgapId = 1): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 16,
      name: 'LocationReportingControl',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          ...ids(ranUeNgapId),
          {
            id: 33,
            name: 'LocationReportingRequestType',
            criticality: 'ignore',
            value: { eventType, reportArea: 'cell' },
          },
        ],
      },
    },
  };
}

/** E-CID Measurement Initiation Request (TS 38.455 8.2.1) as docs/location.md has the LMF send it. */
function ecidRequest(
  measurementId: number,
  quantities: MeasurementQuantitiesValue[],
  transactionId = 7,
): Uint8Array {
  const pdu: NRPPAPDU = {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 2,
      name: 'e-CIDMeasurementInitiation',
      criticality: 'reject',
      nrppatransactionID: transactionId,
      value: {
        protocolIEs: [
          { id: 2, name: 'LMF-UE-Measurement-ID', criticality: 'reject', value: measurementId },
          { id: 3, name: 'ReportCharacteristics', criticality: 'reject', value: 'onDemand' },
          {
            id: 5,
            name: 'MeasurementQuantities',
            criticality: 'reject',
            value: quantities.map((measurementQuantitiesValue) => ({
              id: 11,
              name: 'MeasurementQuantities-Item',
              criticality: 'reject',
              value: { measurementQuantitiesValue },
            })),
          },
        ],
      },
    },
  };
  return encodeComplete(pdu, true, encodeNRPPAPDU);
}

function downlinkNrppa(nrppa: Uint8Array): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 8,
      name: 'DownlinkUEAssociatedNRPPaTransport',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          ...ids(),
          { id: 89, name: 'RoutingID', criticality: 'reject', value: ROUTING_ID },
          { id: 46, name: 'NRPPa-PDU', criticality: 'reject', value: nrppa },
        ],
      },
    },
  };
}

const NR_QUANTITIES: MeasurementQuantitiesValue[] = [
  'cell-ID',
  'timingAdvanceNR',
  'angleOfArrivalNR',
  'sS-RSRP',
  'sS-RSRQ',
];
const EUTRA_QUANTITIES: MeasurementQuantitiesValue[] = [
  'cell-ID',
  'timingAdvanceType1',
  'angleOfArrival',
  'rSRP',
  'rSRQ',
];

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** The NRPPa PDU inside an Uplink UE Associated NRPPa Transport, decoded, after its NGAP IEs are checked. */
function nrppaOf(received: AmfReceived): NRPPAPDU {
  const pdu = received.pdu;
  assert.ok(pdu?.choice === 'initiatingMessage' && pdu.value.name === 'UplinkUEAssociatedNRPPaTransport');
  const ies = pdu.value.value.protocolIEs;
  assert.equal(ieValue(ies, 'AMF-UE-NGAP-ID'), AMF_UE_NGAP_ID);
  assert.equal(ieValue(ies, 'RAN-UE-NGAP-ID'), 1);
  assert.deepEqual([...(ieValue(ies, 'RoutingID') ?? [])], [0x01]);
  const bytes = ieValue(ies, 'NRPPa-PDU');
  assert.ok(bytes !== undefined);
  const decoded = decodeComplete(bytes, true, decodeNRPPAPDU);
  assert.ok(decoded.ok, decoded.ok ? '' : decoded.error);
  return decoded.value;
}

/** The NR cell identity a Location Report or Uplink NAS Transport names. */
function reportedCell(received: AmfReceived): unknown {
  const pdu = received.pdu;
  assert.ok(pdu?.choice === 'initiatingMessage');
  const message = pdu.value;
  const location =
    message.name === 'LocationReport'
      ? ieValue(message.value.protocolIEs, 'UserLocationInformation')
      : message.name === 'UplinkNASTransport'
        ? ieValue(message.value.protocolIEs, 'UserLocationInformation')
        : undefined;
  assert.ok(location?.choice === 'userLocationInformationNR');
  return json(location.value.nRCGI.nRCellIdentity);
}

function requestTypeOf(received: AmfReceived): unknown {
  const pdu = received.pdu;
  assert.ok(pdu?.choice === 'initiatingMessage' && pdu.value.name === 'LocationReport');
  return json(ieValue(pdu.value.value.protocolIEs, 'LocationReportingRequestType'));
}

describe('simulated gNB: location (fake transport, scripted AMF)', () => {
  after(async () => {
    const ngap = await tshark('ngap', ngapSeen);
    ngap.forEach((verdict) => {
      assert.equal(verdict.malformed, false, verdict.info);
      assert.equal(verdict.expert, '', `${verdict.info}: ${verdict.expert}`);
    });
    assert.ok(ngap.some((v) => v.info === 'LocationReport'));
    assert.ok(ngap.some((v) => v.info === 'LocationReportingFailureIndication'));
    // The Uplink UE Associated NRPPa Transports: Wireshark names the NRPPa procedure inside.
    assert.equal(ngap.filter((v) => v.info === 'id-e-CIDMeasurementInitiation').length, 4);
  });

  it('direct: a Location Report with the NR CGI and TAI, echoing the request type', async () => {
    const { amf, send } = await setup(NR_CELL, { pci: 101, arfcn: 632628 });
    const report = amf.next('LocationReport');
    send(locationReportingControl('direct'));
    const received = await report;
    assert.deepEqual(reportedCell(received), json(bitStringOf(0x4001n, 36)));
    assert.ok(received.pdu?.choice === 'initiatingMessage' && received.pdu.value.name === 'LocationReport');
    const ies = received.pdu.value.value.protocolIEs;
    assert.equal(ieValue(ies, 'AMF-UE-NGAP-ID'), AMF_UE_NGAP_ID);
    assert.deepEqual(json(ieValue(ies, 'LocationReportingRequestType')), {
      eventType: 'direct',
      reportArea: 'cell',
    });
  });

  it('change of serving cell: a report at once and on every cell change, none after cancel; ULI follows the UE', async () => {
    const { amf, ues, radioUe, connection, send } = await setup(NR_CELL, { pci: 101, arfcn: 632628 });
    const first = amf.next('LocationReport');
    send(locationReportingControl('change-of-serve-cell'));
    assert.deepEqual(reportedCell(await first), json(bitStringOf(0x4001n, 36)));
    const second = amf.next('LocationReport');
    assert.ok(ues.changeCell(radioUe, NR_CELL_2));
    assert.deepEqual(reportedCell(await second), json(bitStringOf(0x4002n, 36)));
    const uplink = amf.next('UplinkNASTransport');
    assert.ok(connection.uplink(FIVEGMM_STATUS));
    assert.deepEqual(reportedCell(await uplink), json(bitStringOf(0x4002n, 36)));
    const cancelled = amf.next('LocationReport');
    send(locationReportingControl('cancel-location-reporting-for-the-ue'));
    send(locationReportingControl('direct'));
    assert.deepEqual(requestTypeOf(await cancelled), { eventType: 'direct', reportArea: 'cell' });
    ues.changeCell(radioUe, NR_CELL);
    // The next report is the one a direct request asks for: the cell change after cancel sent none.
    const next = amf.next('LocationReport');
    send(locationReportingControl('direct'));
    assert.deepEqual(requestTypeOf(await next), { eventType: 'direct', reportArea: 'cell' });
    assert.equal(amf.received.filter((r) => r.messageType === 'LocationReport').length, 4);
  });

  it('area of interest (not simulated) and a radio set to fail: Location Reporting Failure Indication', async () => {
    const { amf, send } = await setup(NR_CELL, { pci: 101, arfcn: 632628, locationReporting: 'fail' });
    const failure = amf.next('LocationReportingFailureIndication');
    send(locationReportingControl('direct'));
    const received = await failure;
    assert.ok(
      received.pdu?.choice === 'initiatingMessage' &&
        received.pdu.value.name === 'LocationReportingFailureIndication',
    );
    assert.deepEqual(ieValue(received.pdu.value.value.protocolIEs, 'Cause'), {
      choice: 'radioNetwork',
      value: 'unspecified',
    });
  });

  it('NR E-CID: serving cell and TAC, access point position, NR-TADV, AoA, SS-RSRP/RSRQ as reported values', async () => {
    const { amf, send } = await setup(NR_CELL, { pci: 101, arfcn: 632628, accessPoint: ACCESS_POINT });
    const answer = amf.next('UplinkUEAssociatedNRPPaTransport');
    send(downlinkNrppa(ecidRequest(3, NR_QUANTITIES, 42)));
    const nrppa = nrppaOf(await answer);
    assert.ok(nrppa.choice === 'successfulOutcome' && nrppa.value.name === 'e-CIDMeasurementInitiation');
    assert.equal(nrppa.value.nrppatransactionID, 42);
    const ies = nrppa.value.value.protocolIEs;
    assert.equal(ieValue(ies, 'LMF-UE-Measurement-ID'), 3);
    assert.equal(ieValue(ies, 'RAN-UE-Measurement-ID'), 1);
    const cgi = {
      pLMNIdentity: { 0: 0x00, 1: 0xf1, 2: 0x10 },
      nRcellIdentifier: json(bitStringOf(0x4001n, 36)),
    };
    assert.deepEqual(json(ieValue(ies, 'E-CID-MeasurementResult')), {
      servingCellID: {
        pLMNIdentity: cgi.pLMNIdentity,
        nGRANcell: { choice: 'nR-CellID', value: cgi.nRcellIdentifier },
      },
      servingCellTAC: { 0: 0, 1: 0, 2: 1 },
      nGRANAccessPointPosition: {
        latitudeSign: 'north',
        latitude: 4990858, // floor(2^23 x 53.5461 / 90)
        longitude: 464453, // floor(2^24 x 9.9661 / 360)
        directionOfAltitude: 'height',
        altitude: 30,
        uncertaintySemiMajor: 19, // 50 m: 10 (1.1^19 - 1) = 51.6 m
        uncertaintySemiMinor: 19,
        orientationOfMajorAxis: 0,
        uncertaintyAltitude: 0,
        confidence: 0,
      },
      measuredResults: [
        // 500 m: a round trip of 102.5 Ts, TADV_0051 (102 <= TADV < 104 Ts, TS 36.133 Table 10.3.1-1).
        { choice: 'choice-Extension', value: { id: 94, name: 'NR-TADV', criticality: 'ignore', value: 51 } },
        // Bearing 90 (east) is 270 degrees counter-clockwise from North.
        {
          choice: 'choice-Extension',
          value: { id: 36, name: 'AngleOfArrivalNR', criticality: 'ignore', value: { azimuthAoA: 2700 } },
        },
        // -90 dBm: SS-RSRP_67; -11 dB: SS-RSRQ_65.
        {
          choice: 'choice-Extension',
          value: {
            id: 32,
            name: 'ResultSS-RSRP',
            criticality: 'ignore',
            value: [{ nRPCI: 101, nRARFCN: 632628, cGINR: cgi, valueSSRSRPCell: 67 }],
          },
        },
        {
          choice: 'choice-Extension',
          value: {
            id: 33,
            name: 'ResultSS-RSRQ',
            criticality: 'ignore',
            value: [{ nRPCI: 101, nRARFCN: 632628, cGINR: cgi, valueSSRSRQCell: 65 }],
          },
        },
      ],
    });
  });

  it('E-UTRA E-CID on an ng-eNB: TADV type 1, AoA, RSRP/RSRQ of the E-UTRA cell; no access point when not configured', async () => {
    const ue: UePositioning = {
      ...MEASURED,
      radio: { distanceMetres: 2000, bearingDegrees: 45, rsrpDbm: -100, rsrqDb: -12 },
    };
    const { amf, send } = await setup(EUTRA_CELL, { pci: 7, arfcn: 1300 }, ue);
    const answer = amf.next('UplinkUEAssociatedNRPPaTransport');
    send(downlinkNrppa(ecidRequest(4, EUTRA_QUANTITIES)));
    const nrppa = nrppaOf(await answer);
    assert.ok(nrppa.choice === 'successfulOutcome' && nrppa.value.name === 'e-CIDMeasurementInitiation');
    const result = json(ieValue(nrppa.value.value.protocolIEs, 'E-CID-MeasurementResult')) as Record<
      string,
      unknown
    >;
    assert.deepEqual(result.servingCellID, {
      pLMNIdentity: { 0: 0x00, 1: 0xf1, 2: 0x10 },
      nGRANcell: { choice: 'eUTRA-CellID', value: json(bitStringOf(0x1234567, 28)) },
    });
    assert.equal(result.nGRANAccessPointPosition, undefined);
    assert.deepEqual(result.measuredResults, [
      // 2000 m: 409.9 Ts round trip, TADV_0204.
      { choice: 'valueTimingAdvanceType1-EUTRA', value: 204 },
      // Bearing 45 is 315 degrees counter-clockwise: AOA_630 in 0.5 degree steps.
      { choice: 'valueAngleOfArrival-EUTRA', value: 630 },
      { choice: 'resultRSRP-EUTRA', value: [{ pCIEUTRA: 7, eARFCN: 1300, valueRSRPEUTRA: 41 }] },
      { choice: 'resultRSRQ-EUTRA', value: [{ pCIEUTRA: 7, eARFCN: 1300, valueRSRQEUTRA: 16 }] },
    ]);
  });

  it('E-CID failure on demand; silence sends nothing; a UE without radio measurements gets the cell only', async () => {
    const failing = await setup(NR_CELL, { pci: 101, arfcn: 632628, ecid: 'fail' });
    const refused = failing.amf.next('UplinkUEAssociatedNRPPaTransport');
    failing.send(downlinkNrppa(ecidRequest(5, NR_QUANTITIES)));
    const failure = nrppaOf(await refused);
    assert.ok(
      failure.choice === 'unsuccessfulOutcome' && failure.value.name === 'e-CIDMeasurementInitiation',
    );
    assert.equal(ieValue(failure.value.value.protocolIEs, 'LMF-UE-Measurement-ID'), 5);
    assert.deepEqual(ieValue(failure.value.value.protocolIEs, 'Cause'), {
      choice: 'radioNetwork',
      value: 'unspecified',
    });

    const silent = await setup(NR_CELL, { pci: 101, arfcn: 632628, ecid: 'silent' });
    silent.send(downlinkNrppa(ecidRequest(6, NR_QUANTITIES)));
    const report = silent.amf.next('LocationReport');
    silent.send(locationReportingControl('direct'));
    await report;
    assert.equal(
      silent.amf.received.filter((r) => r.messageType === 'UplinkUEAssociatedNRPPaTransport').length,
      0,
    );

    const bare = await setup(NR_CELL, { pci: 101, arfcn: 632628 }, NO_POSITIONING);
    const answer = bare.amf.next('UplinkUEAssociatedNRPPaTransport');
    bare.send(downlinkNrppa(ecidRequest(7, NR_QUANTITIES)));
    const nrppa = nrppaOf(await answer);
    assert.ok(nrppa.choice === 'successfulOutcome' && nrppa.value.name === 'e-CIDMeasurementInitiation');
    const result = json(ieValue(nrppa.value.value.protocolIEs, 'E-CID-MeasurementResult')) as Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(result), ['servingCellID', 'servingCellTAC']);
  });

  it('what the generated readers refuse (TS 38.413 10.3, TS 38.455 10.3) is noted, not answered', async () => {
    const { amf, location, send } = await setup(NR_CELL, { pci: 101, arfcn: 632628 });
    // NRPPa-PDU before Routing ID: not the order of the object set (10.3.6, falsely constructed).
    const transport = downlinkNrppa(ecidRequest(6, NR_QUANTITIES));
    assert.ok(
      transport.choice === 'initiatingMessage' &&
        transport.value.name === 'DownlinkUEAssociatedNRPPaTransport',
    );
    send({
      ...transport,
      value: { ...transport.value, value: { protocolIEs: [...transport.value.value.protocolIEs].reverse() } },
    });
    // An E-CID request without its LMF UE Measurement ID, of criticality reject (10.3.5).
    const request = decodeComplete(ecidRequest(7, NR_QUANTITIES), true, decodeNRPPAPDU);
    assert.ok(request.ok && request.value.choice === 'initiatingMessage');
    const { value } = request.value;
    assert.ok(value.name === 'e-CIDMeasurementInitiation');
    const withoutId = value.value.protocolIEs.filter((ie) => ie.name !== 'LMF-UE-Measurement-ID');
    send(
      downlinkNrppa(
        encodeComplete(
          { choice: 'initiatingMessage', value: { ...value, value: { protocolIEs: withoutId } } },
          true,
          encodeNRPPAPDU,
        ),
      ),
    );
    const report = amf.next('LocationReport');
    send(locationReportingControl('direct'));
    await report;
    assert.deepEqual(
      location.ignored.map((i) => `${i.messageType}: ${i.reason}`),
      [
        'DownlinkUEAssociatedNRPPaTransport: abstract syntax error: falsely-constructed',
        'E-CID Measurement Initiation: abstract syntax error: reject',
      ],
    );
    assert.equal(amf.received.filter((r) => r.messageType === 'UplinkUEAssociatedNRPPaTransport').length, 0);
  });

  it('an unknown RAN UE NGAP ID and undecodable NRPPa are not acted on', async () => {
    const { amf, location, send } = await setup(NR_CELL, { pci: 101, arfcn: 632628 });
    send(downlinkNrppa(Uint8Array.of(0xde, 0xad)));
    send(locationReportingControl('direct', 9));
    const report = amf.next('LocationReport');
    send(locationReportingControl('direct'));
    await report;
    assert.deepEqual(
      location.ignored.map((i) => `${i.messageType}: ${i.reason.split(':')[0]}`),
      ['NRPPa: undecodable', 'LocationReportingControl: unknown RAN UE NGAP ID'],
    );
    assert.equal(amf.received.filter((r) => r.messageType === 'LocationReport').length, 1);
  });
});
