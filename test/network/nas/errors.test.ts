// TS 24.501 section 7: which errors are fatal to a message and which are ignored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeNasMessage,
  decodeNasPdu,
  macInput,
  type NasErrorKind,
} from '../../../src/network/nas/index.ts';

const bytes = (hex: string): Uint8Array => Buffer.from(hex, 'hex');

function fatal(hex: string, kind: NasErrorKind, cause?: number): void {
  const result = decodeNasPdu(bytes(hex));
  assert.ok(!result.ok, hex);
  assert.equal(result.error.kind, kind, hex);
  assert.equal(result.error.fatal, true, hex);
  assert.equal(result.error.cause, cause, hex);
}

function ignored(hex: string, kind: NasErrorKind, keep: Record<string, unknown>): void {
  const result = decodeNasMessage(bytes(hex));
  assert.ok(result.ok, hex);
  assert.deepEqual(
    result.errors.map((e) => [e.kind, e.fatal]),
    [[kind, false]],
    hex,
  );
  for (const [key, value] of Object.entries(keep))
    assert.deepEqual((result.message as Record<string, unknown>)[key], value, key);
}

describe('NAS decoding errors (TS 24.501 section 7)', () => {
  it('drops messages too short for their header (7.2)', () => {
    fatal('', 'message-too-short');
    fatal('7e00', 'message-too-short');
    fatal('2e0501', 'message-too-short');
    fatal('7e01000000', 'message-too-short');
  });

  it('rejects unknown discriminators, security header types and message types (7.4: #97)', () => {
    fatal('0f0041', 'unknown-protocol-discriminator');
    fatal('7e0500000000007e0043', 'unknown-security-header-type');
    fatal('7e0040', 'unknown-message-type', 97);
    fatal('2e0501c0', 'unknown-message-type', 97);
  });

  it('rejects a missing or invalid mandatory IE (7.5: #96) and keeps what came before', () => {
    fatal('7e0044', 'missing-mandatory-ie', 96);
    fatal('7e004179000d0100f110', 'missing-mandatory-ie', 96);
    // Session-AMBR must be 6 octets.
    fatal(
      '2e0501c2110009010006313101 01ff05 0506000106000'.replace(/ /g, '') + '1',
      'invalid-mandatory-ie',
      96,
    );
    const result = decodeNasMessage(bytes('7e00410900'));
    assert.ok(!result.ok);
    assert.equal(result.error.ie, 'mobileIdentity');
    assert.deepEqual(result.partial?.registrationType, { followOnRequestPending: true, value: 1 });
  });

  it('rejects an unknown comprehension-required IE (TS 24.007 11.2.4) but skips other unknown IEs (7.6.1)', () => {
    fatal('7e0043 0c0100'.replace(' ', ''), 'comprehension-required-ie', 96);
    ignored('7e0044 09 3c0100 5f0121'.replace(/ /g, ''), 'unknown-ie', {
      fiveGmmCause: 9,
      t3346Value: { unit: 1, value: 1 },
    });
    ignored('7e0044 09 a5 5f0121'.replace(/ /g, ''), 'unknown-ie', { t3346Value: { unit: 1, value: 1 } });
    ignored('7e0044 09 7f000100 5f0121'.replace(/ /g, ''), 'unknown-ie', {
      t3346Value: { unit: 1, value: 1 },
    });
  });

  it('ignores out-of-sequence (7.6.2) and repeated (7.6.3) IEs, keeping the first', () => {
    ignored('7e0044 09 160121 5f0122'.replace(/ /g, ''), 'out-of-sequence-ie', {
      t3502Value: { unit: 1, value: 1 },
      t3346Value: undefined,
    });
    ignored('7e0044 09 5f0121 5f0122'.replace(/ /g, ''), 'repeated-ie', {
      t3346Value: { unit: 1, value: 1 },
    });
  });

  it('treats a syntactically wrong optional IE as absent (7.7.1)', () => {
    ignored('7e0044 09 5f020101 160121'.replace(/ /g, ''), 'invalid-optional-ie', {
      t3346Value: undefined,
      t3502Value: { unit: 1, value: 1 },
    });
    ignored('7e0044 09 5f05'.replace(/ /g, ''), 'invalid-optional-ie', { fiveGmmCause: 9 });
  });

  it('exposes the protected wrapper and the octets MAC and ciphering cover', () => {
    const result = decodeNasPdu(bytes('7e0212345678097e0043'));
    assert.ok(result.ok && result.pdu.kind === 'protected');
    assert.equal(result.pdu.securityHeaderType, 2);
    assert.equal(result.pdu.sequenceNumber, 9);
    assert.equal(Buffer.from(result.pdu.mac).toString('hex'), '12345678');
    assert.equal(Buffer.from(result.pdu.payload).toString('hex'), '7e0043');
    // TS 24.501 4.4.3.3: the MAC covers the sequence number and the message.
    assert.equal(Buffer.from(macInput(result.pdu)).toString('hex'), '097e0043');
    // Ciphered: the payload is left to the caller.
    assert.equal(result.pdu.inner, undefined);
    const integrityOnly = decodeNasPdu(bytes('7e0112345678097e0043'));
    assert.ok(integrityOnly.ok && integrityOnly.pdu.kind === 'protected');
    assert.equal(
      integrityOnly.pdu.inner?.ok && integrityOnly.pdu.inner.message.messageType,
      'registrationComplete',
    );
  });
});
