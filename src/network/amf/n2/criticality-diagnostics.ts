import type {
  Cause,
  Criticality,
  CriticalityDiagnostics,
  CriticalityDiagnosticsIEItem,
  TriggeringMessage,
} from '../../ngap/generated/types.ts';

/** The procedure a diagnosis is about, as far as the receiver could read it. */
export interface DiagnosedProcedure {
  procedureCode: number;
  triggeringMessage: TriggeringMessage;
  criticality: Criticality;
}

/** An IE that was missing or not understood (TS 38.413 9.3.1.3, IE Criticality Diagnostics). */
export interface DiagnosedIe {
  id: number;
  criticality: Criticality;
  typeOfError: 'not-understood' | 'missing';
}

/**
 * Criticality Diagnostics (TS 38.413 9.3.1.3). Procedure Code and Triggering Message are used only
 * when the diagnostics travel in Error Indication, not in the response of the procedure that caused
 * the error; the procedure's criticality and the faulty IEs always.
 */
export function criticalityDiagnostics(
  procedure: DiagnosedProcedure,
  ies: readonly DiagnosedIe[],
  inErrorIndication: boolean,
): CriticalityDiagnostics {
  const items: CriticalityDiagnosticsIEItem[] = ies.map((ie) => ({
    iECriticality: ie.criticality,
    iEID: ie.id,
    typeOfError: ie.typeOfError,
  }));
  return {
    ...(inErrorIndication
      ? { procedureCode: procedure.procedureCode, triggeringMessage: procedure.triggeringMessage }
      : {}),
    procedureCriticality: procedure.criticality,
    ...(items.length > 0 ? { iEsCriticalityDiagnostics: items } : {}),
  };
}

/** Protocol causes of TS 38.413 10 (Handling of unknown, unforeseen and erroneous protocol data). */
export const PROTOCOL_CAUSE = {
  /** 10.2: the PDU does not decode. */
  transferSyntaxError: { choice: 'protocol', value: 'transfer-syntax-error' },
  /** 10.3: an abstract syntax error (a missing or not comprehended element) where criticality is reject. */
  abstractSyntaxErrorReject: { choice: 'protocol', value: 'abstract-syntax-error-reject' },
  /** 10.3: the same where criticality is ignore and notify. */
  abstractSyntaxErrorIgnoreAndNotify: {
    choice: 'protocol',
    value: 'abstract-syntax-error-ignore-and-notify',
  },
  /** 10.3.6: IEs in the wrong order or more than once. */
  abstractSyntaxErrorFalselyConstructedMessage: {
    choice: 'protocol',
    value: 'abstract-syntax-error-falsely-constructed-message',
  },
  /** 10.4: a logical error, e.g. a message before NG Setup or an answer to nothing sent. */
  messageNotCompatibleWithReceiverState: {
    choice: 'protocol',
    value: 'message-not-compatible-with-receiver-state',
  },
} as const satisfies Record<string, Cause>;

/** A cause as radio events and logs spell it: `<group>/<value>` (network.md section 3). */
export function causeText(cause: Cause): string {
  // The group is the ASN.1 name of the Cause alternative; a cause from a later release is its index.
  return cause.choice === 'choice-Extensions' ? 'choice-Extensions' : `${cause.choice}/${cause.value}`;
}
