// What can be wrong with a received NAS message, classified as TS 24.501 section 7 says. A fatal error
// means the message as a whole is not acted upon (7.2, 7.4, 7.5: the receiver ignores it or answers with
// a 5GMM/5GSM STATUS carrying `cause`); the others are ignored and the message is still processed
// without the offending IE (7.6, 7.7.1).

export type NasErrorKind =
  /** 7.2: too short to hold a complete header and message type. Fatal. */
  | 'message-too-short'
  /** TS 24.007 11.2.3.1.1: neither 5GMM (0x7e) nor 5GSM (0x2e). Fatal. */
  | 'unknown-protocol-discriminator'
  /** 9.3: a security header type this release does not define. Fatal. */
  | 'unknown-security-header-type'
  /** 7.4: message type not defined for the protocol discriminator. Fatal, cause #97. */
  | 'unknown-message-type'
  /** 7.5: a mandatory IE absent (or cut off). Fatal, cause #96. */
  | 'missing-mandatory-ie'
  /** 7.5: a mandatory IE whose contents are syntactically wrong. Fatal, cause #96. */
  | 'invalid-mandatory-ie'
  /**
   * 7.6.1 with TS 24.007 11.2.4: an unknown IE whose IEI has bits 8-5 0000 ("comprehension
   * required") is handled as a missing mandatory IE. Fatal, cause #96.
   */
  | 'comprehension-required-ie'
  /** 7.6.1: an IEI unknown in this message. Ignored (skipped over). */
  | 'unknown-ie'
  /** 7.6.2: a known IE after one that follows it in the table. Ignored. */
  | 'out-of-sequence-ie'
  /** 7.6.3: a non-repeatable IE received again; the first is kept. Ignored. */
  | 'repeated-ie'
  /** 7.7.1: an optional IE that is syntactically wrong or cut off; handled as absent. Ignored. */
  | 'invalid-optional-ie';

export interface NasError {
  kind: NasErrorKind;
  fatal: boolean;
  /** Octet offset in the decoded buffer where the problem starts. */
  offset: number;
  /** The IE's key in the message's table, when one is concerned. */
  ie?: string;
  /** The IEI as received, for optional-part errors. */
  iei?: number;
  /** The 5GMM/5GSM cause a STATUS message would carry (#96, #97), for fatal errors that warrant one. */
  cause?: number;
  detail: string;
}

/** 5GMM/5GSM cause values of TS 24.501 9.11.3.2 / 9.11.4.2 for protocol errors. */
export const PROTOCOL_ERROR_CAUSE = {
  invalidMandatoryInformation: 96,
  messageTypeNonExistent: 97,
} as const;

const FATAL: Record<NasErrorKind, boolean> = {
  'message-too-short': true,
  'unknown-protocol-discriminator': true,
  'unknown-security-header-type': true,
  'unknown-message-type': true,
  'missing-mandatory-ie': true,
  'invalid-mandatory-ie': true,
  'comprehension-required-ie': true,
  'unknown-ie': false,
  'out-of-sequence-ie': false,
  'repeated-ie': false,
  'invalid-optional-ie': false,
};

const CAUSE: Partial<Record<NasErrorKind, number>> = {
  'unknown-message-type': PROTOCOL_ERROR_CAUSE.messageTypeNonExistent,
  'missing-mandatory-ie': PROTOCOL_ERROR_CAUSE.invalidMandatoryInformation,
  'invalid-mandatory-ie': PROTOCOL_ERROR_CAUSE.invalidMandatoryInformation,
  'comprehension-required-ie': PROTOCOL_ERROR_CAUSE.invalidMandatoryInformation,
};

export function nasError(
  kind: NasErrorKind,
  offset: number,
  detail: string,
  about: { ie?: string; iei?: number } = {},
): NasError {
  const error: NasError = { kind, fatal: FATAL[kind], offset, detail, ...about };
  const cause = CAUSE[kind];
  if (cause !== undefined) error.cause = cause;
  return error;
}
