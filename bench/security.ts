// CPU per operation of the 5G security libraries (issue 15 item 6), beside a bare node:crypto HMAC-SHA-256 in
// the same run. Run: npx tsx bench/security.ts [--seconds N] (default 1 second of CPU per row).
import { createHmac, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

import { generateAuthenticationVector } from '../src/crypto/five-g-aka.ts';
import {
  ACCESS_TYPE,
  ALGORITHM_TYPE,
  deriveAlgorithmKey,
  deriveKamf,
  deriveKgnb,
  deriveNh,
  servingNetworkName,
} from '../src/crypto/key-hierarchy.ts';
import { nasEncrypt, nasMac, UPLINK, type NasAlgorithm } from '../src/crypto/nas-algorithms.ts';
import {
  PROTECTION_SCHEME,
  concealMsin,
  deconcealSuci,
  generateHomeNetworkKey,
  type EciesProfile,
} from '../src/crypto/suci.ts';
import { cpuPerOperation } from './cpu-per-op.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const SECONDS = Number(values.seconds);
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');
// Issue 15: at least 5,000 de-concealments per second on one core for each ECIES profile.
const DECONCEAL_GOAL_PER_SECOND = 5000;

interface Row {
  name: string;
  cpuUs: number;
  goalPerSecond?: number;
}

const measure = (operation: () => unknown): number => cpuPerOperation(operation, SECONDS, 100);

const snn = servingNetworkName('001', '01');
const key = randomBytes(16);
const opc = randomBytes(16);
const kseaf = randomBytes(32);
const nasMessage = randomBytes(100);
const nas = { key: randomBytes(16), count: 1, bearer: 1, direction: UPLINK };

const rows: Row[] = [];
const baseline = measure(() => createHmac('sha256', kseaf).update(nasMessage).digest());
rows.push({ name: 'baseline: node:crypto HMAC-SHA-256 over 100 bytes', cpuUs: baseline });

let sqn = 0;
rows.push({
  name: '5G-AKA vector (MILENAGE, AUTN, XRES*, KAUSF, HXRES*, KSEAF)',
  cpuUs: measure(() => {
    const sqnBytes = Buffer.alloc(6);
    sqnBytes.writeUIntBE((sqn += 32), 0, 6);
    return generateAuthenticationVector({
      key,
      opc,
      sqn: sqnBytes,
      rand: randomBytes(16),
      servingNetworkName: snn,
    });
  }),
});
rows.push({
  name: 'registration keys (KAMF, KNASint, KNASenc, KgNB, NH)',
  cpuUs: measure(() => {
    const amfKey = deriveKamf(kseaf, 'imsi-001010000000001', Buffer.alloc(2));
    deriveAlgorithmKey(amfKey, ALGORITHM_TYPE.nasIntegrity, 2);
    deriveAlgorithmKey(amfKey, ALGORITHM_TYPE.nasEncryption, 2);
    const kgnb = deriveKgnb(amfKey, 0, ACCESS_TYPE.threeGpp);
    return deriveNh(amfKey, kgnb);
  }),
});

for (const [label, profile] of [
  ['Profile A (X25519)', PROTECTION_SCHEME.profileA],
  ['Profile B (P-256)', PROTECTION_SCHEME.profileB],
] as [string, EciesProfile][]) {
  const { key: hnKey } = generateHomeNetworkKey(profile);
  const outputs = Array.from({ length: 64 }, () => concealMsin(profile, '0000000001', hnKey.publicKey));
  let next = 0;
  rows.push({
    name: `SUCI de-concealment, ${label}`,
    cpuUs: measure(() => {
      const schemeOutput = outputs[next++ % outputs.length] as Buffer;
      const result = deconcealSuci(
        { protectionScheme: profile, homeNetworkPublicKeyId: 1, schemeOutput },
        () => hnKey,
      );
      if (!result.ok) throw new Error(result.error);
      return result;
    }),
    goalPerSecond: DECONCEAL_GOAL_PER_SECOND,
  });
}

for (const algorithm of [1, 2, 3] as NasAlgorithm[]) {
  rows.push({
    name: `NIA${algorithm} MAC, 100-byte NAS message`,
    cpuUs: measure(() => nasMac(algorithm, nas, nasMessage)),
  });
  rows.push({
    name: `NEA${algorithm} cipher, 100-byte NAS message`,
    cpuUs: measure(() => nasEncrypt(algorithm, nas, nasMessage)),
  });
}

const number = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const width = Math.max(...rows.map((row) => row.name.length));
process.stdout.write(
  `${'operation'.padEnd(width)}  ${'CPU/op'.padStart(10)}  ${'ops/s (1 core)'.padStart(14)}  ${'x baseline'.padStart(10)}  goal\n`,
);
for (const row of rows) {
  const perSecond = 1e6 / row.cpuUs;
  const goal =
    row.goalPerSecond === undefined
      ? ''
      : `>= ${number(row.goalPerSecond)}/s ${perSecond >= row.goalPerSecond ? 'met' : 'NOT MET'}`;
  process.stdout.write(
    `${row.name.padEnd(width)}  ${`${number(row.cpuUs, row.cpuUs < 10 ? 2 : 1)} µs`.padStart(10)}  ${number(perSecond).padStart(14)}  ${number(row.cpuUs / baseline, 1).padStart(10)}  ${goal}\n`,
  );
}
