import { MESSAGE_IES, PROCEDURES, type ProcedureSpec } from '../../ngap/generated/ies.ts';
import type {
  Cause,
  Criticality,
  CriticalityDiagnostics,
  CriticalityDiagnosticsIEItem,
  NGAPPDU,
} from '../../ngap/generated/types.ts';
import { checkIes, type IeAtFault } from '../../ngap/ie-check.ts';
import { ngapMessageType } from '../../ngap/ngap-codec.ts';
import {
  criticalityDiagnostics,
  PROTOCOL_CAUSE,
  type DiagnosedIe,
  type DiagnosedProcedure,
} from './criticality-diagnostics.ts';
import { errorIndication } from './ngap-messages.ts';

/** A PDU of one of the three kinds, not an extension alternative. */
type DecodedPdu = Exclude<NGAPPDU, { choice: null }>;

/** An IE of any protocol IE container, as decoded (`name` null for an id outside the message's set). */
interface AnyIe {
  id: number;
  name: string | null;
  criticality: Criticality;
  value: unknown;
}

/** maxnoofErrors (TS 38.413 9.4.7): the most IEs one Criticality Diagnostics lists. */
const MAX_ERRORS = 256;

/**
 * What the receiver of a message does about the abstract syntax of its IEs (TS 38.413 10.3), before
 * the procedure reads them:
 * - `process`: handle the message; `report`, when set, carries the IEs of criticality notify that were
 *   not comprehended or missing, to go into the response (10.3.4.2, 10.3.5);
 * - `reject`: none of its requests is executed. `answer` is the failure message of the procedure or an
 *   Error Indication; undefined for a response message (the procedure is over, local error handling)
 *   and for an Error Indication (never answered by another, or two nodes could echo forever).
 */
type SyntaxVerdict =
  | { action: 'process'; report: NotifyReport | undefined }
  | { action: 'reject'; cause: Cause; answer: NGAPPDU | undefined };

/**
 * Judges a decoded message of a procedure the AMF comprehends (10.3.4.1 is the caller's) against its
 * object set (`checkIes`), in order of precedence:
 * - IEs in the wrong order or repeated (10.3.6): rejected with `abstract-syntax-error-falsely-constructed-message`;
 * - an IE of criticality reject not comprehended (10.3.4.2) or missing (10.3.5): rejected with
 *   `abstract-syntax-error-reject`, Criticality Diagnostics listing every such IE of criticality reject
 *   or notify (`not-understood` / `missing`);
 * - of criticality notify: processed, reported (`NotifyReport`); ignore: processed.
 */
export function judgeAbstractSyntax(pdu: DecodedPdu): SyntaxVerdict {
  const ies = protocolIes(pdu);
  const errors = ies === undefined ? undefined : checkIes(ngapMessageType(pdu), ies);
  if (errors === undefined) return PROCESS;
  const { notComprehended, missing, falselyConstructed } = errors;
  if (!falselyConstructed && notComprehended.length === 0 && missing.length === 0) return PROCESS;
  const procedure = diagnosedProcedure(pdu);
  if (falselyConstructed) {
    const cause = PROTOCOL_CAUSE.abstractSyntaxErrorFalselyConstructedMessage;
    return { action: 'reject', cause, answer: rejection(pdu, cause, procedure, []) };
  }
  const reported = reportedIes(notComprehended, missing);
  if (reported.some((ie) => ie.criticality === 'reject')) {
    const cause = PROTOCOL_CAUSE.abstractSyntaxErrorReject;
    return { action: 'reject', cause, answer: rejection(pdu, cause, procedure, reported) };
  }
  if (reported.length === 0) return PROCESS;
  return { action: 'process', report: new NotifyReport(pdu, procedure, reported) };
}

/** The verdict on a message without abstract syntax errors to report (shared: no per-message object). */
const PROCESS: SyntaxVerdict = Object.freeze({ action: 'process', report: undefined });

/**
 * IEs of criticality notify the AMF ignored in a message it processed (10.3.4.2 "Ignore IE and Notify
 * Sender", 10.3.5): reported in the response of the procedure when it has one with Criticality
 * Diagnostics, else by Error Indication, `abstract-syntax-error-ignore-and-notify`. The caller passes
 * each PDU sent while the message is handled through `attach`, then sends `errorIndication()` unless
 * `reported`.
 */
export class NotifyReport {
  #reported = false;
  readonly #pdu: DecodedPdu;
  readonly #procedure: DiagnosedProcedure;
  readonly #ies: readonly DiagnosedIe[];

  constructor(pdu: DecodedPdu, procedure: DiagnosedProcedure, ies: readonly DiagnosedIe[]) {
    this.#pdu = pdu;
    this.#procedure = procedure;
    this.#ies = ies;
  }

  get reported(): boolean {
    return this.#reported;
  }

  /**
   * `sent` with the report in its Criticality Diagnostics when it is the response of the reported
   * initiating message, or an Error Indication the AMF sends about it; otherwise unchanged.
   */
  attach(sent: NGAPPDU): NGAPPDU {
    if (this.#reported || sent.choice === null) return sent;
    const procedureCode = this.#procedure.procedureCode;
    const response =
      this.#pdu.choice === 'initiatingMessage' &&
      sent.choice !== 'initiatingMessage' &&
      sent.value.procedureCode === procedureCode;
    const errorIndicationSent = sent.choice === 'initiatingMessage' && sent.value.name === 'ErrorIndication';
    if (!response && !errorIndicationSent) return sent;
    const merged = withDiagnostics(sent, this.#procedure, this.#ies, errorIndicationSent);
    if (merged !== undefined) this.#reported = true;
    return merged ?? sent;
  }

  /** The Error Indication that reports the IEs when no response carried them. */
  errorIndication(): NGAPPDU {
    this.#reported = true;
    return errorIndication({
      cause: PROTOCOL_CAUSE.abstractSyntaxErrorIgnoreAndNotify,
      diagnostics: criticalityDiagnostics(this.#procedure, this.#ies, true),
      ...ueIds(this.#pdu),
    });
  }
}

/**
 * The answer to a rejected message. An initiating message of a procedure with a failure message gets
 * it (cause, Criticality Diagnostics without procedure code and triggering message, 9.3.1.3) when every
 * mandatory IE of the failure can be filled from the request; otherwise, and for a procedure without
 * one, an Error Indication carrying the UE's NGAP ids the message named (8.2.7.2). Response messages
 * and Error Indications are not answered.
 */
function rejection(
  pdu: DecodedPdu,
  cause: Cause,
  procedure: DiagnosedProcedure,
  ies: readonly DiagnosedIe[],
): NGAPPDU | undefined {
  if (pdu.choice !== 'initiatingMessage' || pdu.value.name === 'ErrorIndication') return undefined;
  const spec = PROCEDURES.get(pdu.value.procedureCode);
  const failure =
    spec === undefined
      ? undefined
      : failureMessage(pdu, spec, cause, criticalityDiagnostics(procedure, ies, false));
  return (
    failure ??
    errorIndication({ cause, diagnostics: criticalityDiagnostics(procedure, ies, true), ...ueIds(pdu) })
  );
}

/**
 * The procedure's failure message built from its object set: Cause and Criticality Diagnostics, and
 * each other mandatory IE copied from the request when it carries the same IE (the UE's NGAP ids of
 * Handover Required). Undefined when the procedure has none, or the request cannot fill it (10.3.4.2:
 * "insufficient to determine a value for all IEs that are required", then Error Indication).
 */
function failureMessage(
  pdu: DecodedPdu,
  spec: ProcedureSpec,
  cause: Cause,
  diagnostics: CriticalityDiagnostics,
): NGAPPDU | undefined {
  if (spec.unsuccessfulOutcome === undefined) return undefined;
  const failureIes = MESSAGE_IES.get(spec.unsuccessfulOutcome) ?? [];
  const requestIes = MESSAGE_IES.get(spec.initiatingMessage) ?? [];
  const received = protocolIes(pdu) ?? [];
  const ies: AnyIe[] = [];
  let withCause = false;
  for (const ie of failureIes) {
    const head = { id: ie.id, name: ie.name, criticality: ie.criticality };
    if (ie.type === 'Cause') {
      ies.push({ ...head, value: cause });
      withCause = true;
    } else if (ie.type === 'CriticalityDiagnostics') ies.push({ ...head, value: diagnostics });
    else if (ie.presence === 'mandatory') {
      const sameIe = requestIes.some((r) => r.id === ie.id && r.type === ie.type);
      const copy = sameIe ? received.find((r) => r.id === ie.id && r.name !== null) : undefined;
      if (copy === undefined) return undefined;
      ies.push({ ...head, value: copy.value });
    }
  }
  if (!withCause) return undefined;
  // The table pairs each IE id with its name and type as the generated union does, so this is a
  // member of UnsuccessfulOutcome; TypeScript cannot follow a table.
  return {
    choice: 'unsuccessfulOutcome',
    value: {
      procedureCode: pdu.value.procedureCode,
      name: spec.name,
      criticality: spec.criticality,
      value: { protocolIEs: ies },
    },
  } as unknown as NGAPPDU;
}

/**
 * `sent` with `ies` added to its Criticality Diagnostics IE (merged into one it already has, else
 * placed where its object set puts it); undefined when the message has no such IE.
 */
function withDiagnostics(
  sent: DecodedPdu,
  procedure: DiagnosedProcedure,
  ies: readonly DiagnosedIe[],
  inErrorIndication: boolean,
): NGAPPDU | undefined {
  const specs = MESSAGE_IES.get(ngapMessageType(sent));
  const place = specs?.findIndex((spec) => spec.type === 'CriticalityDiagnostics') ?? -1;
  const spec = specs?.[place];
  const present = protocolIes(sent);
  if (spec === undefined || specs === undefined || present === undefined) return undefined;
  const fresh = criticalityDiagnostics(procedure, ies, inErrorIndication);
  const existing = present.find((ie) => ie.id === spec.id && ie.name !== null);
  let protocolIEs: AnyIe[];
  if (existing !== undefined) {
    const old = existing.value as CriticalityDiagnostics;
    const items: CriticalityDiagnosticsIEItem[] = [
      ...(old.iEsCriticalityDiagnostics ?? []),
      ...(fresh.iEsCriticalityDiagnostics ?? []),
    ].slice(0, MAX_ERRORS);
    const value = { ...fresh, ...old, iEsCriticalityDiagnostics: items };
    protocolIEs = present.map((ie) => (ie === existing ? { ...ie, value } : ie));
  } else {
    const ie = { id: spec.id, name: spec.name, criticality: spec.criticality, value: fresh };
    const after = present.findIndex(
      (other) => specs.findIndex((candidate) => candidate.id === other.id) > place,
    );
    protocolIEs = after === -1 ? [...present, ie] : [...present.slice(0, after), ie, ...present.slice(after)];
  }
  // Same message, one IE of its own set added or changed (see failureMessage).
  return {
    choice: sent.choice,
    value: { ...sent.value, value: { ...sent.value.value, protocolIEs } },
  } as unknown as NGAPPDU;
}

/** The message's protocol IEs; undefined for one without a protocol IE container (PrivateMessage). */
function protocolIes(pdu: DecodedPdu): AnyIe[] | undefined {
  return (pdu.value.value as { protocolIEs?: AnyIe[] }).protocolIEs;
}

/** The UE's NGAP ids a UE-associated message named, for the Error Indication about it (8.2.7.2). */
function ueIds(pdu: DecodedPdu): { amfUeNgapId?: number; ranUeNgapId?: number } {
  const ies = protocolIes(pdu) ?? [];
  const id = (name: string): number | undefined => {
    const value = ies.find((ie) => ie.name === name)?.value;
    return typeof value === 'number' ? value : undefined;
  };
  const amfUeNgapId = id('AMF-UE-NGAP-ID');
  const ranUeNgapId = id('RAN-UE-NGAP-ID');
  return {
    ...(amfUeNgapId === undefined ? {} : { amfUeNgapId }),
    ...(ranUeNgapId === undefined ? {} : { ranUeNgapId }),
  };
}

/**
 * The IEs not comprehended, then the missing ones, for Criticality Diagnostics: at most maxnoofErrors,
 * IE Criticality ignore never reported (9.3.1.3).
 */
function reportedIes(notComprehended: readonly IeAtFault[], missing: readonly IeAtFault[]): DiagnosedIe[] {
  const reported: DiagnosedIe[] = [];
  const add = (ies: readonly IeAtFault[], typeOfError: DiagnosedIe['typeOfError']): void => {
    for (let i = 0; i < ies.length && reported.length < MAX_ERRORS; i++) {
      const { id, criticality } = ies[i]!;
      if (criticality !== 'ignore') reported.push({ id, criticality, typeOfError });
    }
  };
  add(notComprehended, 'not-understood');
  add(missing, 'missing');
  return reported;
}

/** The procedure, message kind and criticality of a decoded PDU, for its Criticality Diagnostics. */
export function diagnosedProcedure(pdu: DecodedPdu): DiagnosedProcedure {
  const triggeringMessage =
    pdu.choice === 'initiatingMessage'
      ? 'initiating-message'
      : pdu.choice === 'successfulOutcome'
        ? 'successful-outcome'
        : 'unsuccessful-outcome';
  return { procedureCode: pdu.value.procedureCode, triggeringMessage, criticality: pdu.value.criticality };
}
