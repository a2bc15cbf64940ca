// Byte-exact round trips of NAS messages from independent implementations (third-party/vectors,
// SOURCE.md): the 19 messages of pycrate's test_mobile.py and every NAS-PDU of open5gs's 5G roaming
// capture. Both sources use NEA0, so the payload of a ciphered-type wrapper is the plain message too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  decodeNasMessage,
  decodeNasPdu,
  encodeNasMessage,
  encodeSecurityProtected,
  type NasMessage,
  type NasMessageOf,
} from '../../../src/network/nas/index.ts';

const VECTORS = new URL('../../../third-party/vectors/', import.meta.url);

interface PycrateFile {
  vectors: { comment: string; hex: string }[];
}
interface Open5gsFile {
  messages: { frame: number; nas_pdus: string[]; ngap_hex: string }[];
}

const pycrate = JSON.parse(
  readFileSync(new URL('pycrate-nas5gs-messages.json', VECTORS), 'utf8'),
) as PycrateFile;
const open5gs = JSON.parse(
  readFileSync(new URL('open5gs-5g-roaming-hr.ngap.json', VECTORS), 'utf8'),
) as Open5gsFile;

const CASES = [
  ...pycrate.vectors.map((v) => ({ name: `pycrate ${v.comment}`, hex: v.hex })),
  ...open5gs.messages.flatMap((m) => m.nas_pdus.map((hex) => ({ name: `open5gs frame ${m.frame}`, hex }))),
];

function roundTripPlain(bytes: Uint8Array, name: string): NasMessage {
  const result = decodeNasMessage(bytes);
  assert.ok(result.ok, `${name}: ${JSON.stringify(result.ok ? '' : result.error)}`);
  assert.deepEqual(result.errors, [], name);
  assert.equal(
    Buffer.from(encodeNasMessage(result.message)).toString('hex'),
    Buffer.from(bytes).toString('hex'),
    name,
  );
  return result.message;
}

/** Decodes a message and any message nested in it (NAS message container, 5GSM payload), round-tripping each. */
function roundTripAll(bytes: Uint8Array, name: string): NasMessage[] {
  const message = roundTripPlain(bytes, name);
  const nested: NasMessage[] = [message];
  if ('nasMessageContainer' in message && message.nasMessageContainer)
    nested.push(...roundTripAll(message.nasMessageContainer, `${name} > NAS message container`));
  if (
    (message.messageType === 'ulNasTransport' || message.messageType === 'dlNasTransport') &&
    message.payloadContainerType === 1
  )
    nested.push(...roundTripAll(message.payloadContainer, `${name} > N1 SM information`));
  return nested;
}

/** Every vector decoded (wrapper, inner and nested messages), each checked to re-encode byte for byte. */
function decodeAll(): Map<string, NasMessage[]> {
  const decoded = new Map<string, NasMessage[]>();
  for (const { name, hex } of CASES) {
    const bytes = Buffer.from(hex, 'hex');
    const result = decodeNasPdu(bytes);
    assert.ok(result.ok, name);
    const { pdu } = result;
    if (pdu.kind === 'plain') {
      decoded.set(hex, roundTripAll(bytes, name));
      continue;
    }
    assert.equal(Buffer.from(encodeSecurityProtected(pdu)).toString('hex'), hex, `${name} wrapper`);
    if (pdu.inner) assert.ok(pdu.inner.ok, `${name} inner`);
    decoded.set(hex, roundTripAll(pdu.payload, `${name} payload`));
  }
  return decoded;
}

describe('NAS vectors from pycrate and open5gs', () => {
  it('decodes and re-encodes every message byte for byte (wrapper, inner and nested messages)', () => {
    assert.equal(CASES.length, 31);
    assert.equal(decodeAll().size, 31);
  });

  it('reads the identities, keys and session parameters the AMF and SMF need', () => {
    // Decoded here too, so that the test runs alone.
    const all = [...decodeAll().values()].flat();
    const find = <K extends NasMessage['messageType']>(type: K, index = 0): NasMessageOf<K> => {
      const found = all.filter((m): m is NasMessageOf<K> => m.messageType === type)[index];
      assert.ok(found, type);
      return found;
    };
    // pycrate line 148: SUCI, null scheme, MSIN 2222222222 under 001-01.
    const request = find('registrationRequest');
    assert.deepEqual(request.registrationType, { followOnRequestPending: true, value: 1 });
    assert.deepEqual(request.ngKsi, { mapped: false, ksi: 7 });
    assert.deepEqual(request.mobileIdentity, {
      type: 'suci',
      supiFormat: 'imsi',
      mcc: '001',
      mnc: '01',
      routingIndicator: '0000',
      protectionScheme: 0,
      homeNetworkPublicKeyId: 0,
      schemeOutput: { scheme: 'null', msin: '2222222222' },
    });
    assert.deepEqual(request.ueSecurityCapability, { ea: [0, 1, 2], ia: [0, 1, 2] });
    // pycrate line 159: Registration Accept with 5G-GUTI, TAI list, allowed NSSAI and timers.
    const accept = find('registrationAccept');
    assert.deepEqual(accept.fiveGGuti, {
      type: '5g-guti',
      mcc: '302',
      mnc: '640',
      amfRegionId: 1,
      amfSetId: 1,
      amfPointer: 1,
      tmsi: 0xc0e00010,
    });
    assert.deepEqual(accept.taiList, [
      { type: 'consecutive-tacs', plmn: { mcc: '302', mnc: '640' }, firstTac: 100, count: 1 },
    ]);
    assert.deepEqual(accept.allowedNssai, [{ sst: 10, sd: 0xabcdef }]);
    assert.deepEqual(accept.t3512Value, { unit: 3, value: 5 });
    // open5gs frame 1392: Authentication Request with RAND and AUTN as on the wire.
    const authentication = find('authenticationRequest', 1);
    assert.equal(
      Buffer.from(authentication.authenticationParameterRand ?? []).toString('hex'),
      '56387c70f45e176c3a6fc8afca3f754e',
    );
    assert.equal(Buffer.from(authentication.abba).toString('hex'), '0000');
    // open5gs frame 1424: NEA0 and 128-NIA2 selected, IMEISV requested.
    const command = find('securityModeCommand', 2);
    assert.deepEqual(command.selectedNasSecurityAlgorithms, { ciphering: 0, integrity: 2 });
    assert.equal(command.imeisvRequest, 1);
    // open5gs frame 1555: PDU Session Establishment Request for DNN internet, with DNS/MTU requests.
    const transport = find('ulNasTransport', 2);
    assert.equal(transport.dnn, 'internet');
    assert.equal(transport.pduSessionId, 5);
    const establishment = find('pduSessionEstablishmentRequest', 2);
    assert.deepEqual(
      establishment.extendedProtocolConfigurationOptions?.options.map((o) =>
        o.kind === 'raw' ? o.identifier : o.kind,
      ),
      [0x8021, 0x000c, 0x000d, 0x0002, 0x000a, 0x0010],
    );
    // pycrate line 163: PDU Session Establishment Accept.
    const sessionAccept = find('pduSessionEstablishmentAccept');
    assert.deepEqual(sessionAccept.authorizedQosRules, [
      {
        identifier: 1,
        operationCode: 1,
        defaultRule: true,
        packetFilters: [{ identifier: 1, direction: 3, contents: Uint8Array.of(0x01) }],
        precedence: 255,
        segregation: false,
        qfi: 5,
      },
    ]);
    assert.deepEqual(sessionAccept.sessionAmbr, {
      downlink: { unit: 6, value: 1 },
      uplink: { unit: 6, value: 1 },
    });
    assert.deepEqual(sessionAccept.pduAddress, { type: 1, ipv4: '172.17.95.1' });
    assert.equal(sessionAccept.dnn, 'data1');
    // open5gs frame 1774: Deregistration Request (switch off) with the 5G-GUTI that frame 1550 assigned.
    const deregistration = find('deregistrationRequestUeOriginating', 1);
    assert.deepEqual(deregistration.deregistrationType, {
      switchOff: true,
      reRegistrationRequired: false,
      accessType: 1,
    });
    assert.deepEqual(deregistration.mobileIdentity, find('registrationAccept', 1).fiveGGuti);
  });

  it('round-trips the NAS-PDU of frame 1704, which the JSON leaves inside its PDU session resource item', () => {
    // PDUSessionResourceSetupRequest: the item's pDUSessionNAS-PDU (OCTET STRING, one length octet)
    // is the protected DL NAS Transport that starts 7e02826bf876 (tshark labels it in tshark_info).
    const ngap = open5gs.messages.find((m) => m.frame === 1704)?.ngap_hex ?? '';
    const at = ngap.indexOf('7e02826bf876');
    assert.ok(at > 0);
    const length = parseInt(ngap.slice(at - 2, at), 16);
    const result = decodeNasPdu(Buffer.from(ngap.slice(at, at + 2 * length), 'hex'));
    assert.ok(result.ok && result.pdu.kind === 'protected');
    const [transport, accept] = roundTripAll(result.pdu.payload, 'open5gs frame 1704');
    assert.equal(transport?.messageType, 'dlNasTransport');
    assert.ok(accept?.messageType === 'pduSessionEstablishmentAccept');
    assert.deepEqual(accept.pduAddress, {
      type: 3,
      ipv6InterfaceIdentifier: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 2),
      ipv4: '10.46.0.2',
    });
    assert.deepEqual(accept.extendedProtocolConfigurationOptions?.options.slice(1), [
      { kind: 'dns-server-ipv4', address: '8.8.8.8' },
      { kind: 'dns-server-ipv4', address: '8.8.4.4' },
      { kind: 'ipv4-link-mtu', mtu: 1400 },
    ]);
    assert.deepEqual(accept.authorizedQosFlowDescriptions, [
      { qfi: 1, operationCode: 1, eBit: true, parameters: [{ identifier: 1, contents: Uint8Array.of(9) }] },
    ]);
  });
});
