import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitStringOf } from '../../../src/network/asn1/bit-string.ts';
import { ecidEstimate } from '../../../src/network/lmf/ecid-estimate.ts';
import { createLmf } from '../../../src/network/lmf/lmf.ts';
import type { NetworkEcidOutcome } from '../../../src/network/lmf/lmf.ts';
import { decodeLppMessage, encodeLppMessage } from '../../../src/network/lmf/lpp-codec.ts';
import {
  capable,
  gnssEstimateOf,
  lppAnswerOf,
  requestCapabilities,
  requestLocationInformation,
  ueMeasurementsOf,
} from '../../../src/network/lmf/lpp-messages.ts';
import { decodeNrppaPdu, encodeNrppaPdu } from '../../../src/network/lmf/nrppa-codec.ts';
import { ecidAnswerOf } from '../../../src/network/lmf/nrppa-ecid.ts';
import type { RadioMeasurement } from '../../../src/network/lmf/radio-measurement.ts';
import { plmnIdentity } from '../../../src/network/ngap/ngap-values.ts';
import type { ECIDMeasurementResult, NRPPAPDU } from '../../../src/network/nrppa/generated/types.ts';
import type { ServingCell } from '../../../src/simulator/ue/ran-ue-messages.ts';
import { answerLpp } from '../../../src/simulator/ue/ue-lpp.ts';
import type { UePositioning } from '../../../src/simulator/ue/ue-positioning.ts';
import { manualClock } from '../../helpers/test-app.ts';
import { prng } from '../ngap/fuzz.ts';

/**
 * The LMF's decoding of what radios (NRPPa, TS 38.455) and devices (LPP, TS 37.355) send it, fuzzed with
 * fixed seeds: random bytes and valid answers mutated (bit flips, truncation, inserted and deleted bytes,
 * overwritten octets). Decoding returns errors and never throws; whatever decodes is read into finite
 * values; a hostile answer on one device's connection settles at most that device's own request, and
 * another device's request open at the same time still gets its own answer.
 */

const A = '001010000000001';
const B = '001010000000002';
const NR_CELL: ServingCell = { plmn: { mcc: '001', mnc: '01' }, nrCellIdentity: 0x4001, tac: 1 };
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

/** A device that answers every LPP request it can (the simulator's LPP side makes valid answers). */
const DEVICE: UePositioning = {
  capabilities: { nrEcid: true, ecid: true, agnss: true },
  nrCells: [
    {
      pci: 101,
      ssbArfcn: 632628,
      ssRsrpDbm: -85,
      ssRsrqDb: -10.5,
      ssbBeams: [{ index: 3, rsrpDbm: -84, rsrqDb: -10 }],
    },
    { pci: 102, ssbArfcn: 632628, ssRsrpDbm: -101, ssRsrqDb: -15 },
  ],
  eutraCells: [
    { pci: 7, earfcn: 1300, rsrpDbm: -95, rsrqDb: -9 },
    { pci: 8, earfcn: 1300, rsrpDbm: -105, rsrqDb: -12 },
  ],
  gnss: { kind: 'fix', latitude: 53.55, longitude: 9.97, uncertaintyMetres: 12 },
};

const plmn = plmnIdentity('001', '01');

/** E-CID measurement results of an NR and an E-UTRA cell, with every measured quantity the LMF reads. */
const NR_RESULT: ECIDMeasurementResult = {
  servingCellID: { pLMNIdentity: plmn, nGRANcell: { choice: 'nR-CellID', value: bitStringOf(0x4001, 36) } },
  servingCellTAC: Uint8Array.of(0, 0, 1),
  nGRANAccessPointPosition: {
    latitudeSign: 'north',
    latitude: 4_990_000,
    longitude: 464_000,
    directionOfAltitude: 'height',
    altitude: 30,
    uncertaintySemiMajor: 20,
    uncertaintySemiMinor: 20,
    orientationOfMajorAxis: 0,
    uncertaintyAltitude: 10,
    confidence: 68,
  },
  measuredResults: [
    { choice: 'choice-Extension', value: { id: 94, name: 'NR-TADV', criticality: 'ignore', value: 205 } },
    {
      choice: 'choice-Extension',
      value: { id: 36, name: 'AngleOfArrivalNR', criticality: 'ignore', value: { azimuthAoA: 2700 } },
    },
    {
      choice: 'choice-Extension',
      value: {
        id: 32,
        name: 'ResultSS-RSRP',
        criticality: 'ignore',
        value: [
          {
            nRPCI: 101,
            nRARFCN: 632628,
            cGINR: { pLMNIdentity: plmn, nRcellIdentifier: bitStringOf(0x4001, 36) },
            valueSSRSRPCell: 67,
            sSRSRPPerSSB: [{ sSBIndex: 3, valueSSRSRP: 70 }],
          },
          { nRPCI: 102, nRARFCN: 632628, valueSSRSRPCell: 50 },
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
            nRPCI: 101,
            nRARFCN: 632628,
            valueSSRSRQCell: 66,
            sSRSRQPerSSB: [{ sSBIndex: 3, valueSSRSRQ: 67 }],
          },
        ],
      },
    },
  ],
};

const EUTRA_RESULT: ECIDMeasurementResult = {
  servingCellID: {
    pLMNIdentity: plmn,
    nGRANcell: { choice: 'eUTRA-CellID', value: bitStringOf(0x12345a1, 28) },
  },
  servingCellTAC: Uint8Array.of(0, 0, 1),
  measuredResults: [
    { choice: 'valueTimingAdvanceType1-EUTRA', value: 300 },
    { choice: 'valueTimingAdvanceType2-EUTRA', value: 310 },
    { choice: 'valueAngleOfArrival-EUTRA', value: 180 },
    {
      choice: 'resultRSRP-EUTRA',
      value: [
        {
          pCIEUTRA: 7,
          eARFCN: 1300,
          cGIEUTRA: { pLMNIdentity: plmn, eUTRAcellIdentifier: bitStringOf(0x12345a1, 28) },
          valueRSRPEUTRA: 46,
        },
        { pCIEUTRA: 8, eARFCN: 1300, valueRSRPEUTRA: 36 },
      ],
    },
    { choice: 'resultRSRQ-EUTRA', value: [{ pCIEUTRA: 7, eARFCN: 1300, valueRSRQEUTRA: 22 }] },
  ],
};

/** E-CID Measurement Initiation Response (TS 38.455 9.1.1.2) or Failure (9.1.1.3) for measurement `id`. */
function ecidAnswer(id: number, result: ECIDMeasurementResult | undefined): NRPPAPDU {
  if (result === undefined)
    return {
      choice: 'unsuccessfulOutcome',
      value: {
        procedureCode: 2,
        name: 'e-CIDMeasurementInitiation',
        criticality: 'reject',
        nrppatransactionID: 0,
        value: {
          protocolIEs: [
            { id: 2, name: 'LMF-UE-Measurement-ID', criticality: 'reject', value: id },
            {
              id: 0,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'radioNetwork', value: 'unspecified' },
            },
          ],
        },
      },
    };
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 2,
      name: 'e-CIDMeasurementInitiation',
      criticality: 'reject',
      nrppatransactionID: 0,
      value: {
        protocolIEs: [
          { id: 2, name: 'LMF-UE-Measurement-ID', criticality: 'reject', value: id },
          { id: 6, name: 'RAN-UE-Measurement-ID', criticality: 'reject', value: 1 },
          { id: 7, name: 'E-CID-MeasurementResult', criticality: 'ignore', value: result },
        ],
      },
    },
  };
}

const NRPPA_SEEDS = [NR_RESULT, EUTRA_RESULT, undefined].map((result) =>
  encodeNrppaPdu(ecidAnswer(1, result)),
);

/** One fuzz input from `seeds`: random bytes, or a seed mutated as the NGAP fuzzer does. */
function mutate(random: () => number, seeds: readonly Uint8Array[]): Uint8Array {
  const int = (n: number): number => Math.floor(random() * n);
  const kind = int(7);
  if (kind === 0) return Uint8Array.from({ length: int(96) }, () => int(256));
  // A copy: the seeds are Buffers, whose slice() is a view that the mutations would write through.
  let bytes = Uint8Array.from(seeds[int(seeds.length)]!);
  if (kind === 1 || kind === 5) {
    for (let flips = 1 + int(4); flips > 0; flips--) bytes[int(bytes.length)]! ^= 1 << int(8);
  }
  if (kind === 2) bytes = bytes.slice(0, int(bytes.length));
  if (kind === 3) {
    const at = int(bytes.length + 1);
    const inserted = Uint8Array.from({ length: 1 + int(8) }, () => int(256));
    bytes = Uint8Array.from([...bytes.subarray(0, at), ...inserted, ...bytes.subarray(at)]);
  }
  if (kind === 4) {
    const at = int(bytes.length);
    bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + 1 + int(4))]);
  }
  if (kind === 5) bytes[int(bytes.length)] = [0x00, 0x7f, 0x80, 0xbf, 0xc1, 0xff][int(6)]!;
  // A valid seed left as it is, now and then: the fuzz also covers the happy path.
  return bytes;
}

const finite = (...values: (number | undefined)[]): boolean =>
  values.every((v) => v === undefined || Number.isFinite(v));

function assertFiniteMeasurements(measurements: readonly RadioMeasurement[]): void {
  for (const m of measurements) {
    assert.ok(Number.isInteger(m.pci) && Number.isInteger(m.arfcn), JSON.stringify(m));
    assert.ok(finite(m.ssRsrp, m.ssRsrq, m.rsrp, m.rsrq), JSON.stringify(m));
    for (const beam of m.ssbBeams ?? []) assert.ok(finite(beam.rsrp, beam.rsrq), JSON.stringify(m));
  }
}

/** A report's numbers are finite, and so is the estimate the locator would make of it. */
function assertUsableOutcome(outcome: NetworkEcidOutcome): void {
  if (!outcome.ok) {
    assert.equal(typeof outcome.reason, 'string');
    return;
  }
  const { report } = outcome;
  assertFiniteMeasurements(report.measurements);
  const anchor = report.accessPoint ?? { lat: 53.5, lon: 10, uncertainty: 0 };
  assert.ok(finite(anchor.lat, anchor.lon, anchor.uncertainty));
  const estimate = ecidEstimate(anchor, report);
  if (estimate !== undefined) assert.ok(finite(estimate.lat, estimate.lon, estimate.uncertainty));
}

/** The LMF over a recording transport and a manual clock, with every device reachable. */
function harness() {
  const clock = manualClock();
  const nrppa: { imsi: string; pdu: Uint8Array }[] = [];
  const lpp: { imsi: string; message: Uint8Array }[] = [];
  const lmf = createLmf({
    transport: {
      reach: async () => true,
      sendNrppa: (imsi, pdu) => nrppa.push({ imsi, pdu }) > 0,
      sendLpp: (imsi, message) => lpp.push({ imsi, message }) > 0,
    },
    timers: clock,
  });
  return { clock, nrppa, lpp, lmf };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A promise's state without waiting for it. */
function watch<T>(promise: Promise<T>): { settled: () => T | undefined } {
  let value: T | undefined;
  void promise.then((v) => (value = v));
  return { settled: () => value };
}

/** The device's valid LPP answer to the last request sent to `imsi`. */
function deviceAnswer(sent: readonly { imsi: string; message: Uint8Array }[], imsi: string): Uint8Array {
  const request = sent.filter((s) => s.imsi === imsi).at(-1);
  assert.ok(request);
  const answer = answerLpp(request.message, DEVICE, { cell: NR_CELL, nowMs: NOW });
  assert.ok(answer);
  return encodeLppMessage(answer);
}

describe('LMF decoding under fuzz (fixed seeds)', () => {
  it('NRPPa: 4,000 random and mutated E-CID answers never throw; what decodes reads into finite values', () => {
    const random = prng(0x1f2e3d4c);
    let decoded = 0;
    let answers = 0;
    for (let i = 0; i < 4000; i++) {
      const result = decodeNrppaPdu(mutate(random, NRPPA_SEEDS));
      if (!result.ok) {
        assert.equal(typeof result.error, 'string');
        continue;
      }
      decoded++;
      const answer = ecidAnswerOf(result.value);
      if (answer === undefined) continue;
      answers++;
      assert.ok(Number.isInteger(answer.measurementId));
      assertUsableOutcome(
        answer.kind === 'report' ? { ok: true, report: answer.report } : { ok: false, reason: answer.cause },
      );
    }
    // The mutations reach the reading of answers, not only the decoder's refusals.
    assert.ok(decoded > 400 && answers > 200, `${decoded} decoded, ${answers} answers`);
  });

  it('LPP: 4,000 random and mutated device answers never throw; what decodes reads into finite values', () => {
    const random = prng(0x5eed1e55);
    const seeds = lppSeeds();
    let decoded = 0;
    let located = 0;
    for (let i = 0; i < 4000; i++) {
      const result = decodeLppMessage(mutate(random, seeds));
      if (!result.ok) {
        assert.equal(typeof result.error, 'string');
        continue;
      }
      decoded++;
      const answer = lppAnswerOf(result.value);
      if (answer?.kind === 'location') located++;
      if (answer?.kind === 'capabilities') {
        for (const request of ['nr-ecid', 'ecid', 'gnss'] as const) capable(request, answer.capabilities);
      } else if (answer?.kind === 'location') {
        for (const request of ['nr-ecid', 'ecid'] as const) {
          const measured = ueMeasurementsOf(request, answer.information);
          if (measured.ok) assertFiniteMeasurements(measured.measurements);
        }
        const estimate = gnssEstimateOf(answer.information);
        if (estimate.ok) {
          const { lat, lon, uncertainty } = estimate.estimate;
          assert.ok(finite(lat, lon, uncertainty) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180);
        }
      }
    }
    assert.ok(decoded > 400 && located > 200, `${decoded} decoded, ${located} location answers`);
  });

  it('large random inputs (up to 64 KiB) are refused without a throw', () => {
    const random = prng(0xb16b00b5);
    for (let i = 0; i < 40; i++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 65_536) }, () =>
        Math.floor(random() * 256),
      );
      const nrppa = decodeNrppaPdu(bytes);
      const lpp = decodeLppMessage(bytes);
      assert.ok(typeof nrppa.ok === 'boolean' && typeof lpp.ok === 'boolean');
    }
  });

  it('a hostile NRPPa answer on one device’s connection settles only that device’s measurement', async () => {
    const random = prng(0xec1d);
    for (let i = 0; i < 300; i++) {
      const h = harness();
      const a = watch(h.lmf.ecidNetwork(A, 'nr'));
      const b = h.lmf.ecidNetwork(B, 'eutra');
      await turn();
      assert.equal(h.nrppa.length, 2);
      h.lmf.nrppaReceived(A, mutate(random, NRPPA_SEEDS));
      await turn();
      // B's measurement (the same measurement ID 1, another device) is untouched: its own answer completes it.
      h.lmf.nrppaReceived(B, NRPPA_SEEDS[1]!);
      const outcome = await b;
      assert.ok(outcome.ok && outcome.report.timingAdvance === 300, JSON.stringify(outcome));
      // A's is settled by the hostile answer, or still open until its timeout.
      if (a.settled() === undefined) {
        h.clock.advance(10_000);
        await turn();
      }
      const own = a.settled();
      assert.ok(own !== undefined);
      assertUsableOutcome(own);
    }
  });

  it('a hostile LPP answer settles only its own device’s transaction, at the capabilities or the location step', async () => {
    const random = prng(0x1bb);
    for (let i = 0; i < 300; i++) {
      const h = harness();
      const a = watch(h.lmf.gnss(A));
      const b = h.lmf.ueEcid(B, 'nr');
      await turn();
      // Every other round, A's capabilities are answered properly and the location step gets the mutation.
      if (i % 2 === 1) {
        h.lmf.lppReceived(A, deviceAnswer(h.lpp, A));
        await turn();
      }
      h.lmf.lppReceived(A, mutate(random, [deviceAnswer(h.lpp, A)]));
      await turn();
      h.lmf.lppReceived(B, deviceAnswer(h.lpp, B));
      await turn();
      h.lmf.lppReceived(B, deviceAnswer(h.lpp, B));
      const outcome = await b;
      assert.ok(outcome.ok, JSON.stringify(outcome));
      assert.deepEqual(
        outcome.measurements.map((m) => m.pci),
        [101, 102],
      );
      // A ends one way or another: answered (perhaps by the hostile bytes), refused, or timed out.
      for (let step = 0; step < 2 && a.settled() === undefined; step++) {
        h.clock.advance(20_000);
        await turn();
      }
      const own = a.settled();
      assert.ok(own !== undefined);
      if (own.ok) assert.ok(finite(own.estimate.lat, own.estimate.lon, own.estimate.uncertainty));
      else assert.equal(typeof own.reason, 'string');
    }
  });
});

/**
 * Valid device answers to every request the LMF makes (Provide Capabilities, Provide Location Information
 * with NR E-CID, E-UTRA E-CID and GNSS, a GNSS error, an LPP Error), from the simulator's LPP side.
 */
function lppSeeds(): Uint8Array[] {
  const requests = (['nr-ecid', 'ecid', 'gnss'] as const).flatMap((request, i) => [
    requestCapabilities(2 * i, request),
    requestLocationInformation(2 * i + 1, request),
  ]);
  const answers = requests.map((request) =>
    answerLpp(encodeLppMessage(request), DEVICE, { cell: NR_CELL, nowMs: NOW }),
  );
  answers.push(
    answerLpp(
      encodeLppMessage(requestLocationInformation(9, 'gnss')),
      { ...DEVICE, gnss: { kind: 'error' } },
      {
        cell: NR_CELL,
        nowMs: NOW,
      },
    ),
    answerLpp(Uint8Array.of(0xff, 0xff), DEVICE, { cell: NR_CELL, nowMs: NOW }),
  );
  return answers.map((answer) => {
    assert.ok(answer);
    return encodeLppMessage(answer);
  });
}
