import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import {
  ACCESS_TYPE,
  ALGORITHM_TYPE,
  deriveAlgorithmKey,
  deriveHxresStar,
  deriveKamf,
  deriveKausf,
  deriveKgnb,
  deriveKseaf,
  deriveResStar,
  servingNetworkName,
} from '../../src/crypto/key-hierarchy.ts';
import { kdf } from '../../src/crypto/kdf.ts';
import { milenage } from '../../src/crypto/milenage.ts';
import { DOWNLINK, UPLINK, nasMac } from '../../src/crypto/nas-algorithms.ts';

// The 5G-AKA chain of a real registration against open5gs (third-party/vectors/SOURCE.md): every value here was
// either on the wire (AUTN, RES*, the NAS MACs, KgNB in Initial Context Setup) or recomputed independently.
const vectors = JSON.parse(
  readFileSync(new URL('../../third-party/vectors/security-5g-aka-open5gs.json', import.meta.url), 'utf8'),
) as {
  hr_roaming_capture: {
    subscriber: { supi: string; K: string; OPc: string };
    serving_network_name: string;
    abba: string;
    milenage: Record<'RAND' | 'AUTN' | 'SQN' | 'AMF' | 'MAC_A' | 'RES' | 'CK' | 'IK' | 'AK', string>;
    derived: Record<'RES_star' | 'HXRES_star' | 'KAUSF' | 'KSEAF' | 'KAMF' | 'KNASint_NIA2', string>;
    nas_integrity: {
      frame: number;
      dir: 'UL' | 'DL';
      count: number;
      bearer: number;
      message: string;
      mac: string;
    }[];
  };
};
const chain = vectors.hr_roaming_capture;
const hex = (value: string): Buffer => Buffer.from(value, 'hex');

const snn = chain.serving_network_name;
const m = chain.milenage;
const out = milenage({
  key: hex(chain.subscriber.K),
  opc: hex(chain.subscriber.OPc),
  rand: hex(m.RAND),
  sqn: hex(m.SQN),
  amf: hex(m.AMF),
});
const kausf = deriveKausf(out.ck, out.ik, snn, hex(m.AUTN).subarray(0, 6));
const kseaf = deriveKseaf(kausf, snn);
const kamf = deriveKamf(kseaf, chain.subscriber.supi, hex(chain.abba));
const knasInt = deriveAlgorithmKey(kamf, ALGORITHM_TYPE.nasIntegrity, 2);

describe('TS 33.501 Annex A key hierarchy on the open5gs capture', () => {
  it('recomputes RES* (on the wire in frame 1393) and HXRES*', () => {
    const resStar = deriveResStar(out.ck, out.ik, snn, hex(m.RAND), out.res);
    assert.equal(resStar.toString('hex'), chain.derived.RES_star);
    assert.equal(deriveHxresStar(hex(m.RAND), resStar).toString('hex'), chain.derived.HXRES_star);
  });

  it('recomputes KAUSF, KSEAF, KAMF and KNASint for 128-NIA2', () => {
    assert.equal(kausf.toString('hex'), chain.derived.KAUSF);
    assert.equal(kseaf.toString('hex'), chain.derived.KSEAF);
    assert.equal(kamf.toString('hex'), chain.derived.KAMF);
    assert.equal(knasInt.toString('hex'), chain.derived.KNASint_NIA2);
  });

  it('accepts the SUPI with or without its "imsi-" prefix, and only an IMSI', () => {
    const digits = chain.subscriber.supi.replace('imsi-', '');
    assert.deepEqual(deriveKamf(kseaf, digits, hex(chain.abba)), kamf);
    assert.throws(() => deriveKamf(kseaf, 'nai-someone@example.com', hex(chain.abba)), RangeError);
  });

  it('recomputes the four 128-NIA2 NAS MACs seen on the wire', () => {
    for (const message of chain.nas_integrity) {
      // TS 24.501 9.1.1: EPD, security header type, 4-byte MAC, then the MAC covers sequence number || NAS message.
      const bytes = hex(message.message);
      const mac = nasMac(
        2,
        {
          key: knasInt,
          count: message.count,
          bearer: message.bearer,
          direction: message.dir === 'UL' ? UPLINK : DOWNLINK,
        },
        bytes.subarray(6),
      );
      assert.equal(mac.toString('hex'), message.mac, `frame ${message.frame}`);
      assert.equal(
        bytes.subarray(2, 6).toString('hex'),
        message.mac,
        `frame ${message.frame} carries that MAC`,
      );
    }
  });

  it('recomputes KgNB carried in the Initial Context Setup Request (frame 1550)', () => {
    // The Security Key IE (id 94) of that NGAP PDU; the AMF derived it at uplink NAS COUNT 0 (the Security Mode
    // Complete was the only protected uplink message so far).
    const ngap = JSON.parse(
      readFileSync(
        new URL('../../third-party/vectors/open5gs-5g-roaming-hr.ngap.json', import.meta.url),
        'utf8',
      ),
    ) as { messages: { frame: number; ngap_hex: string }[] };
    const ics = ngap.messages.find((message) => message.frame === 1550);
    assert.ok(ics);
    const securityKeyIe = '005e0020'; // id 94, criticality reject, 32 bytes
    const at = ics.ngap_hex.indexOf(securityKeyIe);
    assert.ok(at > 0);
    const kgnb = ics.ngap_hex.slice(at + securityKeyIe.length, at + securityKeyIe.length + 64);
    assert.equal(deriveKgnb(kamf, 0, ACCESS_TYPE.threeGpp).toString('hex'), kgnb);
  });

  it('builds the serving network name with a three-digit MNC', () => {
    assert.equal(servingNetworkName('001', '01'), snn);
    assert.equal(servingNetworkName('310', '410'), '5G:mnc410.mcc310.3gppnetwork.org');
    assert.throws(() => servingNetworkName('1', '01'), RangeError);
  });

  it('encodes the KDF input as FC || P0 || L0 || ... (TS 33.220 B.2.0)', () => {
    // An empty P0 still carries its two-byte length, so it differs from no parameter at all.
    const key = Buffer.alloc(32, 7);
    assert.notDeepEqual(kdf(key, 0x6c, [Buffer.alloc(0)]), kdf(key, 0x6c, []));
    assert.throws(() => kdf(key, 0x100, []), RangeError);
  });
});
