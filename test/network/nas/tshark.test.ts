// Every message kind the codec encodes, dissected by Debian's tshark (Wireshark 4.0 NAS-5GS): it must
// read as the intended message, not malformed, with no expert message at all. Wireshark 4.0 lacks the
// nine Release 17 messages of LATE_REL17_INSTANCES (late-rel17.test.ts checks those); a tshark that
// knows them is held to the same bar.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  encodeNasMessage,
  encodeSecurityProtected,
  messageTypes,
  type NasMessage,
  type NasMessageType,
} from '../../../src/network/nas/index.ts';
import { tsharkTree } from '../../helpers/tshark.ts';
import { INSTANCES, LATE_REL17_INSTANCES } from './instances.ts';

// Wireshark's names (nas_5gs_mm_message_type_vals / nas_5gs_sm_message_type_vals).
const TSHARK_NAME: Record<NasMessageType, string> = {
  registrationRequest: 'Registration request',
  registrationAccept: 'Registration accept',
  registrationComplete: 'Registration complete',
  registrationReject: 'Registration reject',
  deregistrationRequestUeOriginating: 'Deregistration request (UE originating)',
  deregistrationAcceptUeOriginating: 'Deregistration accept (UE originating)',
  deregistrationRequestUeTerminated: 'Deregistration request (UE terminated)',
  deregistrationAcceptUeTerminated: 'Deregistration accept (UE terminated)',
  serviceRequest: 'Service request',
  serviceReject: 'Service reject',
  serviceAccept: 'Service accept',
  controlPlaneServiceRequest: 'Control plane service request',
  networkSliceSpecificAuthenticationCommand: 'Network slice-specific authentication command',
  networkSliceSpecificAuthenticationComplete: 'Network slice-specific authentication complete',
  networkSliceSpecificAuthenticationResult: 'Network slice-specific authentication result',
  configurationUpdateCommand: 'Configuration update command',
  configurationUpdateComplete: 'Configuration update complete',
  authenticationRequest: 'Authentication request',
  authenticationResponse: 'Authentication response',
  authenticationReject: 'Authentication reject',
  authenticationFailure: 'Authentication failure',
  authenticationResult: 'Authentication result',
  identityRequest: 'Identity request',
  identityResponse: 'Identity response',
  securityModeCommand: 'Security mode command',
  securityModeComplete: 'Security mode complete',
  securityModeReject: 'Security mode reject',
  fiveGmmStatus: '5GMM status',
  notification: 'Notification',
  notificationResponse: 'Notification response',
  ulNasTransport: 'UL NAS transport',
  dlNasTransport: 'DL NAS transport',
  pduSessionEstablishmentRequest: 'PDU session establishment request',
  pduSessionEstablishmentAccept: 'PDU session establishment accept',
  pduSessionEstablishmentReject: 'PDU session establishment reject',
  pduSessionAuthenticationCommand: 'PDU session authentication command',
  pduSessionAuthenticationComplete: 'PDU session authentication complete',
  pduSessionAuthenticationResult: 'PDU session authentication result',
  pduSessionModificationRequest: 'PDU session modification request',
  pduSessionModificationReject: 'PDU session modification reject',
  pduSessionModificationCommand: 'PDU session modification command',
  pduSessionModificationComplete: 'PDU session modification complete',
  pduSessionModificationCommandReject: 'PDU session modification command reject',
  pduSessionReleaseRequest: 'PDU session release request',
  pduSessionReleaseReject: 'PDU session release reject',
  pduSessionReleaseCommand: 'PDU session release command',
  pduSessionReleaseComplete: 'PDU session release complete',
  fiveGsmStatus: '5GSM status',
  relayKeyRequest: 'Relay key request',
  relayKeyAccept: 'Relay key accept',
  relayKeyReject: 'Relay key reject',
  relayAuthenticationRequest: 'Relay authentication request',
  relayAuthenticationResponse: 'Relay authentication response',
  serviceLevelAuthenticationCommand: 'Service-level authentication command',
  serviceLevelAuthenticationComplete: 'Service-level authentication complete',
  remoteUeReport: 'Remote UE report',
  remoteUeReportResponse: 'Remote UE report response',
};

const LATE = new Set<string>(Object.keys(LATE_REL17_INSTANCES));

describe('NAS-5GS messages against tshark', () => {
  it('dissects one instance of every message kind as that message, clean', async () => {
    const messages: NasMessage[] = Object.values(INSTANCES);
    assert.deepEqual(messages.map((m) => m.messageType).sort(), messageTypes().sort());
    // Security-protected wrappers around plain messages (header types 1-4; ciphering is NEA0 here,
    // so tshark reads the payload of types 2 and 4 as plain too).
    const wrapped = [1, 2, 3, 4].map((securityHeaderType) => ({
      securityHeaderType: securityHeaderType as 1 | 2 | 3 | 4,
      mac: Uint8Array.of(0x12, 0x34, 0x56, 0x78),
      sequenceNumber: securityHeaderType,
      payload: encodeNasMessage(INSTANCES.registrationComplete),
    }));
    const pdus = [...messages.map(encodeNasMessage), ...wrapped.map(encodeSecurityProtected)];
    const verdicts = await tsharkTree('nas-5gs', pdus);
    verdicts.forEach((verdict, index) => {
      const expected =
        index < messages.length ? TSHARK_NAME[messages[index]?.messageType ?? 'registrationComplete'] : '';
      const messageType = messages[index]?.messageType;
      const what = `${messageType ?? 'protected'} ${Buffer.from(pdus[index] ?? []).toString('hex')}`;
      if (messageType !== undefined && LATE.has(messageType) && /^Unknown Message Type/.test(verdict.expert))
        return;
      assert.equal(verdict.malformed, false, what);
      assert.equal(verdict.expert, '', what);
      if (index < messages.length) assert.ok(verdict.info.startsWith(expected), `${what}: ${verdict.info}`);
      else {
        const layer = JSON.stringify(verdict.layer);
        const { securityHeaderType, sequenceNumber } = wrapped[index - messages.length] ?? wrapped[0]!;
        assert.ok(layer.includes(`"nas_5gs.security_header_type":"${securityHeaderType}"`), what);
        assert.ok(layer.includes('"nas_5gs.msg_auth_code":"0x12345678"'), what);
        assert.ok(layer.includes(`"nas_5gs.seq_no":"${sequenceNumber}"`), what);
      }
    });
    // Header types 1 and 3 are not ciphered: tshark reads the inner Registration Complete.
    assert.match(verdicts[messages.length]?.info ?? '', /Registration complete/);
    assert.match(verdicts[messages.length + 2]?.info ?? '', /Registration complete/);
  });
});
