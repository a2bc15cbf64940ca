// The TPDUs of TS 23.040 9.2.2: SMS-SUBMIT, SMS-DELIVER, SMS-STATUS-REPORT, SMS-SUBMIT-REPORT and
// SMS-DELIVER-REPORT. TP-MTI (bits 1-0 of the first octet) names the TPDU only with its direction and
// carrier: 00 is SMS-DELIVER from the SC and SMS-DELIVER-REPORT from the MS, 01 SMS-SUBMIT-REPORT and
// SMS-SUBMIT, 10 SMS-STATUS-REPORT and SMS-COMMAND (9.2.3.1). The user data stays as its octets here
// (`decodeUserData` reads it), so a decoded TPDU re-encodes to the same octets.
import { decodeTpAddress, encodeTpAddress, type SmsAddress } from './address.ts';
import { decodeDcs } from './dcs.ts';
import { fail, ok, type SmsDecodeResult } from './result.ts';
import {
  decodeTimestamp,
  decodeValidityPeriod,
  encodeTimestamp,
  encodeValidityPeriod,
  VALIDITY_FORMAT,
  type SmsTimestamp,
  type ValidityPeriod,
} from './timestamp.ts';
import {
  MAX_USER_DATA_OCTETS,
  MAX_USER_DATA_SEPTETS,
  userDataOctets,
  type RawUserData,
} from './user-data.ts';

/** TS 23.040 9.2.3.22: TP-FCS values the decoders give as `cause` (the SC or MS answers with them). */
export const TP_FAILURE_CAUSE = {
  tpduNotSupported: 0xb0,
  tpVpfNotSupported: 0xc6,
  tpVpNotSupported: 0xc7,
  unspecifiedTpDcsError: 0x9f,
  unspecified: 0xff,
} as const;

export interface SmsSubmit {
  type: 'sms-submit';
  rejectDuplicates: boolean;
  replyPath: boolean;
  /** TP-SRR: a status report is requested. */
  statusReportRequest: boolean;
  messageReference: number;
  destination: SmsAddress;
  protocolIdentifier: number;
  dataCodingScheme: number;
  validityPeriod?: ValidityPeriod;
  userData: RawUserData;
}

export interface SmsDeliver {
  type: 'sms-deliver';
  /** TP-MMS 0: more messages are waiting in the SC. */
  moreMessagesToSend: boolean;
  loopPrevention: boolean;
  replyPath: boolean;
  /** TP-SRI: a status report will be returned to the SME. */
  statusReportIndication: boolean;
  originator: SmsAddress;
  protocolIdentifier: number;
  dataCodingScheme: number;
  serviceCentreTimeStamp: SmsTimestamp;
  userData: RawUserData;
}

/** TP-PID, TP-DCS and TP-UD of a report: each present as TP-PI says (9.2.3.27). */
interface ReportOptionals {
  protocolIdentifier?: number;
  dataCodingScheme?: number;
  userData?: RawUserData;
}

export interface SmsStatusReport extends ReportOptionals {
  type: 'sms-status-report';
  moreMessagesToSend: boolean;
  loopPrevention: boolean;
  /** TP-SRQ: the report is for an SMS-COMMAND (true) or an SMS-SUBMIT (false). */
  commandReport: boolean;
  messageReference: number;
  recipient: SmsAddress;
  serviceCentreTimeStamp: SmsTimestamp;
  dischargeTime: SmsTimestamp;
  /** TP-ST (9.2.3.15): 0x00 received by the SME, 0x20-0x3f temporary errors, 0x40-0x7f permanent. */
  status: number;
}

export interface SmsSubmitReport extends ReportOptionals {
  type: 'sms-submit-report';
  /** TP-FCS: present in an RP-ERROR, absent in an RP-ACK. */
  failureCause?: number;
  serviceCentreTimeStamp: SmsTimestamp;
}

export interface SmsDeliverReport extends ReportOptionals {
  type: 'sms-deliver-report';
  failureCause?: number;
}

export type Tpdu = SmsSubmit | SmsDeliver | SmsStatusReport | SmsSubmitReport | SmsDeliverReport;

/** Who sent the TPDU: the mobile station or the service centre. */
export type TpduDirection = 'ms-to-sc' | 'sc-to-ms';
/** What RP message carries it: reports travel in RP-ACK and RP-ERROR, the rest in RP-DATA. */
export type TpduCarrier = 'rp-data' | 'rp-ack' | 'rp-error';

const MTI = { deliver: 0, submit: 1, statusReport: 2 } as const;
const UDHI = 0x40;
const bit = (flag: boolean, mask: number): number => (flag ? mask : 0);

function encodeUd(userData: RawUserData): number[] {
  return [userData.length, ...userData.bytes];
}

function encodeOptionals(report: ReportOptionals): number[] {
  const pi =
    bit(report.protocolIdentifier !== undefined, 0x01) |
    bit(report.dataCodingScheme !== undefined, 0x02) |
    bit(report.userData !== undefined, 0x04);
  const out = [pi];
  if (report.protocolIdentifier !== undefined) out.push(report.protocolIdentifier);
  if (report.dataCodingScheme !== undefined) out.push(report.dataCodingScheme);
  if (report.userData !== undefined) out.push(...encodeUd(report.userData));
  return out;
}

/** The octets of a TPDU. Throws RangeError on fields outside their ranges (callers build TPDUs). */
export function encodeTpdu(tpdu: Tpdu): Uint8Array {
  const udhi = (ud: RawUserData | undefined): number => bit(ud?.headerIndicator ?? false, UDHI);
  switch (tpdu.type) {
    case 'sms-submit': {
      const vp = tpdu.validityPeriod;
      const vpf = vp === undefined ? 0 : VALIDITY_FORMAT[vp.format];
      const first =
        MTI.submit |
        bit(tpdu.rejectDuplicates, 0x04) |
        (vpf << 3) |
        bit(tpdu.statusReportRequest, 0x20) |
        udhi(tpdu.userData) |
        bit(tpdu.replyPath, 0x80);
      return Uint8Array.from([
        first,
        tpdu.messageReference,
        ...encodeTpAddress(tpdu.destination),
        tpdu.protocolIdentifier,
        tpdu.dataCodingScheme,
        ...(vp === undefined ? [] : encodeValidityPeriod(vp)),
        ...encodeUd(tpdu.userData),
      ]);
    }
    case 'sms-deliver': {
      const first =
        MTI.deliver |
        bit(!tpdu.moreMessagesToSend, 0x04) |
        bit(tpdu.loopPrevention, 0x08) |
        bit(tpdu.statusReportIndication, 0x20) |
        udhi(tpdu.userData) |
        bit(tpdu.replyPath, 0x80);
      return Uint8Array.from([
        first,
        ...encodeTpAddress(tpdu.originator),
        tpdu.protocolIdentifier,
        tpdu.dataCodingScheme,
        ...encodeTimestamp(tpdu.serviceCentreTimeStamp),
        ...encodeUd(tpdu.userData),
      ]);
    }
    case 'sms-status-report': {
      const first =
        MTI.statusReport |
        bit(!tpdu.moreMessagesToSend, 0x04) |
        bit(tpdu.loopPrevention, 0x08) |
        bit(tpdu.commandReport, 0x20) |
        udhi(tpdu.userData);
      const optionals = hasOptionals(tpdu) ? encodeOptionals(tpdu) : [];
      return Uint8Array.from([
        first,
        tpdu.messageReference,
        ...encodeTpAddress(tpdu.recipient),
        ...encodeTimestamp(tpdu.serviceCentreTimeStamp),
        ...encodeTimestamp(tpdu.dischargeTime),
        tpdu.status,
        ...optionals,
      ]);
    }
    case 'sms-submit-report':
      return encodeSubmitReport(tpdu, udhi(tpdu.userData));
    case 'sms-deliver-report':
      return Uint8Array.from([
        MTI.deliver | udhi(tpdu.userData),
        ...(tpdu.failureCause === undefined ? [] : [tpdu.failureCause]),
        ...encodeOptionals(tpdu),
      ]);
  }
}

// 9.2.2.2a: TP-SCTS sits between TP-PI and the parameters TP-PI announces.
function encodeSubmitReport(tpdu: SmsSubmitReport, udhi: number): Uint8Array {
  const [pi, ...rest] = encodeOptionals(tpdu);
  return Uint8Array.from([
    MTI.submit | udhi,
    ...(tpdu.failureCause === undefined ? [] : [tpdu.failureCause]),
    pi as number,
    ...encodeTimestamp(tpdu.serviceCentreTimeStamp),
    ...rest,
  ]);
}

const hasOptionals = (r: ReportOptionals): boolean =>
  r.protocolIdentifier !== undefined || r.dataCodingScheme !== undefined || r.userData !== undefined;

/** A cursor over the TPDU: each read fails the decode when the octets run out. */
class Reader {
  at = 0;
  constructor(readonly bytes: Uint8Array) {}
  octet(): number | undefined {
    return this.bytes[this.at++];
  }
  get left(): number {
    return this.bytes.length - this.at;
  }
}

const malformed = <T>(error: string): SmsDecodeResult<T> => fail(error, TP_FAILURE_CAUSE.unspecified);

/** TP-UDL and TP-UD at the reader, checked against the limits of 9.2.3.16 and the octets left. */
function readUserData(r: Reader, dcs: number, headerIndicator: boolean): SmsDecodeResult<RawUserData> {
  const length = r.octet();
  if (length === undefined) return malformed('TP-UDL missing');
  const coding = decodeDcs(dcs);
  const septets = coding.alphabet === 'gsm7' && !coding.compressed;
  if (length > (septets ? MAX_USER_DATA_SEPTETS : MAX_USER_DATA_OCTETS))
    return malformed(`TP-UDL ${length} over the maximum`);
  const octets = userDataOctets(coding, length);
  if (octets > r.left) return malformed(`TP-UDL ${length} longer than the TP-UD present`);
  if (octets < r.left) return malformed('octets after the TP-UD');
  const bytes = r.bytes.slice(r.at, r.at + octets);
  r.at += octets;
  return ok({ headerIndicator, length, bytes });
}

function readAddress(r: Reader, what: string): SmsDecodeResult<SmsAddress> {
  const decoded = decodeTpAddress(r.bytes, r.at);
  if ('error' in decoded) return malformed(`${what}: ${decoded.error}`);
  r.at += decoded.length;
  return ok(decoded.address);
}

function readTimestamp(r: Reader, what: string): SmsDecodeResult<SmsTimestamp> {
  const time = decodeTimestamp(r.bytes, r.at);
  if (time === undefined) return malformed(`${what} not a valid time stamp`);
  r.at += 7;
  return ok(time);
}

/**
 * TP-PI and the parameters it announces (9.2.3.27). Reserved bits are ignored and extension octets skipped,
 * as the clause lets a receiver do; a TP-UDL without TP-DCS reads as TP-DCS 0.
 */
function readOptionals(
  r: Reader,
  headerIndicator: boolean,
  required: boolean,
): SmsDecodeResult<ReportOptionals> {
  if (r.left === 0 && !required) return ok({});
  let pi = r.octet();
  if (pi === undefined) return malformed('TP-PI missing');
  const flags = pi;
  while (pi !== undefined && pi & 0x80) pi = r.octet();
  if (pi === undefined) return malformed('TP-PI extension cut off');
  const out: ReportOptionals = {};
  if (flags & 0x01) {
    const pid = r.octet();
    if (pid === undefined) return malformed('TP-PID missing');
    out.protocolIdentifier = pid;
  }
  if (flags & 0x02) {
    const dcs = r.octet();
    if (dcs === undefined) return malformed('TP-DCS missing');
    out.dataCodingScheme = dcs;
  }
  if (flags & 0x04) {
    const ud = readUserData(r, out.dataCodingScheme ?? 0, headerIndicator);
    if (!ud.ok) return ud;
    out.userData = ud.value;
  } else if (r.left > 0) return malformed('octets after the last parameter');
  return ok(out);
}

function decodeSubmit(r: Reader, first: number): SmsDecodeResult<SmsSubmit> {
  const messageReference = r.octet();
  if (messageReference === undefined) return malformed('TP-MR missing');
  const destination = readAddress(r, 'TP-DA');
  if (!destination.ok) return destination;
  const protocolIdentifier = r.octet();
  const dataCodingScheme = r.octet();
  if (protocolIdentifier === undefined || dataCodingScheme === undefined)
    return malformed('TP-PID or TP-DCS missing');
  const vp = decodeValidityPeriod(r.bytes, r.at, (first >> 3) & 0x3);
  if ('error' in vp)
    return fail(
      `TP-VP: ${vp.error}`,
      vp.unsupported ? TP_FAILURE_CAUSE.tpVpNotSupported : TP_FAILURE_CAUSE.unspecified,
    );
  r.at += vp.length;
  const userData = readUserData(r, dataCodingScheme, (first & UDHI) !== 0);
  if (!userData.ok) return userData;
  return ok({
    type: 'sms-submit',
    rejectDuplicates: (first & 0x04) !== 0,
    replyPath: (first & 0x80) !== 0,
    statusReportRequest: (first & 0x20) !== 0,
    messageReference,
    destination: destination.value,
    protocolIdentifier,
    dataCodingScheme,
    ...(vp.period === undefined ? {} : { validityPeriod: vp.period }),
    userData: userData.value,
  });
}

function decodeDeliver(r: Reader, first: number): SmsDecodeResult<SmsDeliver> {
  const originator = readAddress(r, 'TP-OA');
  if (!originator.ok) return originator;
  const protocolIdentifier = r.octet();
  const dataCodingScheme = r.octet();
  if (protocolIdentifier === undefined || dataCodingScheme === undefined)
    return malformed('TP-PID or TP-DCS missing');
  const scts = readTimestamp(r, 'TP-SCTS');
  if (!scts.ok) return scts;
  const userData = readUserData(r, dataCodingScheme, (first & UDHI) !== 0);
  if (!userData.ok) return userData;
  return ok({
    type: 'sms-deliver',
    moreMessagesToSend: (first & 0x04) === 0,
    loopPrevention: (first & 0x08) !== 0,
    replyPath: (first & 0x80) !== 0,
    statusReportIndication: (first & 0x20) !== 0,
    originator: originator.value,
    protocolIdentifier,
    dataCodingScheme,
    serviceCentreTimeStamp: scts.value,
    userData: userData.value,
  });
}

function decodeStatusReport(r: Reader, first: number): SmsDecodeResult<SmsStatusReport> {
  const messageReference = r.octet();
  if (messageReference === undefined) return malformed('TP-MR missing');
  const recipient = readAddress(r, 'TP-RA');
  if (!recipient.ok) return recipient;
  const scts = readTimestamp(r, 'TP-SCTS');
  if (!scts.ok) return scts;
  const dt = readTimestamp(r, 'TP-DT');
  if (!dt.ok) return dt;
  const status = r.octet();
  if (status === undefined) return malformed('TP-ST missing');
  const optionals = readOptionals(r, (first & UDHI) !== 0, false);
  if (!optionals.ok) return optionals;
  return ok({
    type: 'sms-status-report',
    moreMessagesToSend: (first & 0x04) === 0,
    loopPrevention: (first & 0x08) !== 0,
    commandReport: (first & 0x20) !== 0,
    messageReference,
    recipient: recipient.value,
    serviceCentreTimeStamp: scts.value,
    dischargeTime: dt.value,
    status,
    ...optionals.value,
  });
}

function decodeReport(
  r: Reader,
  first: number,
  type: 'sms-submit-report' | 'sms-deliver-report',
  carrier: TpduCarrier,
): SmsDecodeResult<SmsSubmitReport | SmsDeliverReport> {
  let failureCause: number | undefined;
  if (carrier === 'rp-error') {
    failureCause = r.octet();
    if (failureCause === undefined) return malformed('TP-FCS missing');
  }
  const fcs = failureCause === undefined ? {} : { failureCause };
  const headerIndicator = (first & UDHI) !== 0;
  if (type === 'sms-deliver-report') {
    const optionals = readOptionals(r, headerIndicator, true);
    return optionals.ok ? ok({ type, ...fcs, ...optionals.value }) : optionals;
  }
  // 9.2.2.2a: TP-PI comes before TP-SCTS, the parameters it announces after.
  const pi = r.octet();
  if (pi === undefined) return malformed('TP-PI missing');
  const scts = readTimestamp(r, 'TP-SCTS');
  if (!scts.ok) return scts;
  const rest = new Reader(Uint8Array.from([pi, ...r.bytes.subarray(r.at)]));
  const optionals = readOptionals(rest, headerIndicator, true);
  if (!optionals.ok) return optionals;
  return ok({ type, ...fcs, serviceCentreTimeStamp: scts.value, ...optionals.value });
}

/**
 * Decodes a TPDU sent in `direction`, carried in `carrier` (RP-DATA for SMS-SUBMIT, SMS-DELIVER and
 * SMS-STATUS-REPORT; RP-ACK or RP-ERROR for the reports). Never throws; failures carry the TP-FCS to
 * answer with: 0xB0 "TPDU not supported" for a TP-MTI with no TPDU here (SMS-COMMAND is not built),
 * 0xC7 "TP-VP not supported" for an enhanced TP-VP with a coding 9.2.3.12.3 reserves, else 0xFF
 * "unspecified error cause".
 */
export function decodeTpdu(
  bytes: Uint8Array,
  direction: TpduDirection,
  carrier: TpduCarrier = 'rp-data',
): SmsDecodeResult<Tpdu> {
  const r = new Reader(bytes);
  const first = r.octet();
  if (first === undefined) return malformed('empty TPDU');
  const mti = first & 0x3;
  const unsupported = (what: string): SmsDecodeResult<Tpdu> => fail(what, TP_FAILURE_CAUSE.tpduNotSupported);
  if (carrier === 'rp-data') {
    if (direction === 'ms-to-sc') {
      if (mti === MTI.submit) return decodeSubmit(r, first);
      return unsupported(
        mti === MTI.statusReport ? 'SMS-COMMAND is not supported' : `TP-MTI ${mti} in RP-DATA from the MS`,
      );
    }
    if (mti === MTI.deliver) return decodeDeliver(r, first);
    if (mti === MTI.statusReport) return decodeStatusReport(r, first);
    return unsupported(`TP-MTI ${mti} in RP-DATA from the SC`);
  }
  if (direction === 'ms-to-sc' && mti === MTI.deliver)
    return decodeReport(r, first, 'sms-deliver-report', carrier);
  if (direction === 'sc-to-ms' && mti === MTI.submit)
    return decodeReport(r, first, 'sms-submit-report', carrier);
  return unsupported(`TP-MTI ${mti} in ${carrier.toUpperCase()}`);
}
