import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { eea3, eia3, zucKeystream } from '../../src/crypto/zuc.ts';

const hex = (value: string): Buffer => Buffer.from(value, 'hex');
const wordsHex = (z: Uint32Array): string =>
  [...z].map((word) => word.toString(16).padStart(8, '0')).join('');

// ETSI/SAGE "Specification of the 3GPP Confidentiality and Integrity Algorithms 128-EEA3 & 128-EIA3, Document 3:
// Implementor's Test Data" v1.1, section 3: ZUC key stream test sets 1 to 4.
const keystreamSets = [
  {
    set: 1,
    key: '00000000000000000000000000000000',
    iv: '00000000000000000000000000000000',
    z: '27bede74018082da',
  },
  {
    set: 2,
    key: 'ffffffffffffffffffffffffffffffff',
    iv: 'ffffffffffffffffffffffffffffffff',
    z: '0657cfa07096398b',
  },
  {
    set: 3,
    key: '3d4c4be96a82fdaeb58f641db17b455b',
    iv: '84319aa8de6915ca1f6bda6bfbd8c766',
    z: '14f1c2723279c419',
  },
];

// Document 3 section 4: 128-EEA3 test sets 1 to 5 (also TS 33.501 D.4.6), bit lengths as published.
const eea3Sets = [
  {
    set: 1,
    key: '173d14ba5003731d7a60049470f00a29',
    count: 0x66035492,
    bearer: 0x0f,
    direction: 0,
    lengthBits: 193,
    plaintext: '6cf65340735552ab0c9752fa6f9025fe0bd675d9005875b200',
    ciphertext: 'a6c85fc66afb8533aafc2518dfe784940ee1e4b030238cc800',
  },
  {
    set: 2,
    key: 'e5bd3ea0eb55ade866c6ac58bd54302a',
    count: 0x00056823,
    bearer: 0x18,
    direction: 1,
    lengthBits: 800,
    plaintext:
      '14a8ef693d678507bbe7270a7f67ff5006c3525b9807e467c4e56000ba338f5d429559036751822246c80d3b38f07f4be2d8ff5805f5132229bde93bbbdcaf382bf1ee972fbf9977bada8945847a2a6c9ad34a667554e04d1f7fa2c33241bd8f01ba220d',
    ciphertext:
      '131d43e0dea1be5c5a1bfd971d852cbf712d7b4f57961fea3208afa8bca433f456ad09c7417e58bc69cf8866d1353f74865e80781d202dfb3ecff7fcbc3b190fe82a204ed0e350fc0f6f2613b2f2bca6df5a473a57a4a00d985ebad880d6f23864a07b01',
  },
  {
    set: 3,
    key: 'd4552a8fd6e61cc81a2009141a29c10b',
    count: 0x76452ec1,
    bearer: 0x02,
    direction: 1,
    lengthBits: 1570,
    plaintext:
      '38f07f4be2d8ff5805f5132229bde93bbbdcaf382bf1ee972fbf9977bada8945847a2a6c9ad34a667554e04d1f7fa2c33241bd8f01ba220d3ca4ec41e074595f54ae2b454fd971432043601965cca85c2417ed6cbec3bada84fc8a579aea7837b0271177242a64dc0a9de71a8edee86ca3d47d033d6bf539804eca86c584a9052de46ad3fced65543bd90207372b27afb79234f5ff43ea870820e2c2b78a8aae61cce52a0515e348d196664a3456b182a07c406e4a20791271cfeda165d535ec5ea2d4df40',
    ciphertext:
      '8383b0229fcc0b9d2295ec41c977e9c2bb72e220378141f9c8318f3a270dfbcdee6411c2b3044f176dc6e00f8960f97afacd131ad6a3b49b16b7babcf2a509ebb16a75dcab14ff275dbeeea1a2b155f9d52c26452d0187c310a4ee55beaa78ab4024615ba9f5d5adc7728f73560671f013e5e550085d3291df7d5fecedded559641b6c2f585233bc71e9602bd2305855bbd25ffa7f17ecbc042daae38c1f57ad8e8ebd37346f71befdbb7432e0e0bb2cfc09bcd96570cb0c0c39df5e29294e82703a637f80',
  },
  {
    set: 4,
    key: 'db84b4fbccda563b66227bfe456f0f77',
    count: 0xe4850fe1,
    bearer: 0x10,
    direction: 1,
    lengthBits: 2798,
    plaintext:
      'e539f3b8973240da03f2b8aa05ee0a00dbafc0e182055dfe3d7383d92cef40e92928605d52d05f4f9018a1f189ae3997ce19155fb1221db8bb0951a853ad852ce16cff07382c93a157de00ddb125c7539fd85045e4ee07e0c43f9e9d6f414fc4d1c62917813f74c00fc83f3e2ed7c45ba5835264b43e0b20afda6b3053bfb6423b7fce25479ff5f139dd9b5b995558e2a56be18dd581cd017c735e6f0d0d97c4ddc1d1da70c6db4a12cc92778e2fbbd6f3ba52af91c9c6b64e8da4f7a2c266d02d001753df08960393c5d56888bf49eb5c16d9a80427a416bcb597df5bfe6f13890a07ee1340e6476b0d9aa8f822ab0fd1ab0d204f40b7ce6f2e136eb67485e507804d504588ad37ffd816568b2dc40311dfb654cdead47e2385c3436203dd836f9c64d97462ad5dfa63b5cfe08acb9532866f5ca787566fca93e6b1693ee15cf6f7a2d689d9741798dc1c238e1be650733b18fb34ff880e16bbd21b47ac',
    ciphertext:
      '4bbfa91ba25d47db9a9f190d962a19ab323926b351fbd39e351e05da8b8925e30b1cce0d1221101095815cc7cb6319509ec0d67940491987e13f0affac332aa6aa64626d3e9a1917519e0b97b655c6a165e44ca9feac0790d2a321ad3d86b79c5138739fa38d887ec7def449ce8abdd3e7f8dc4ca9e7b73314ad310f9025e61946b3a56dc649ec0da0d63943dff592cf962a7efb2c8524e35a2a6e7879d62604ef268695fa4003027e22e6083077522064bd4a5b906b5f531274f235ed506cff0154c754928a0ce5476f2cb1020a1222d32c1455ecaef1e368fb344d1735bfbedeb71d0a33a2a54b1da5a294e679144ddf11eb1a3de8cf0cc061917974f35c1d9ca0ac81807f8fcce6199a6c7712da865021b04ce0439516f1a526ccda9fd9abbd53c3a684f9ae1e7ee6b11da138ea826c5516b5aadf1abbe36fa7fff92e3a1176064e8d95f2e4882b5500b93228b2194a475c1a27f63f9ffd264989a1bc',
  },
  {
    set: 5,
    key: 'e13fed21b46e4e7ec31253b2bb17b3e0',
    count: 0x2738cdaa,
    bearer: 0x1a,
    direction: 0,
    lengthBits: 4019,
    plaintext:
      '8d74e20d54894e06d3cb13cb3933065e8674be62adb1c72b3a646965ab63cb7b7854dfdc27e84929f49c64b872a490b13f957b64827e71f41fbd4269a42c97f824537027f86e9f4ad82d1df451690fdd98b6d03f3a0ebe3a312d6b840ba5a1820b2a2c9709c090d245ed267cf845ae41fa975d3333ac3009fd40eba9eb5b885714b768b697138baf21380eca49f644d48689e4215760b906739f0d2b3f091133ca15d981cbe401baf72d05ace05cccb2d297f4ef6a5f58d91246cfa77215b892ab441d5278452795ccb7f5d79057a1c4f77f80d46db2033cb79bedf8e60551ce10c667f62a97abafabbcd6772018df96a282ea737ce2cb331211f60d5354ce78f9918d9c206ca042c9b62387dd709604a50af16d8d35a8906be484cf2e74a9289940364353249b27b4c9ae29eddfc7da6418791a4e7baa0660fa64511f2d685cc3a5ff70e0d2b74292e3b8a0cd6b04b1c790b8ead2703708540dea2fc09c3da770f65449e84d817a4f551055e19ab85018a0028b71a144d96791e9a3577933504eee0060340c69d274e1bf9d805dcbcc1a6faa976800b6ff2b671dc463652fa8a33ee50974c1c21be01eabb2167430269d72ee511c9dde30797c9a25d86ce74f5b961be5fdfb6807814039e7137636bd1d7fa9e09efd2007505906a5ac45dfdeed7757bbee745749c29633350bee0ea6f409df45801600',
    ciphertext:
      '94eaa4aa30a57137ddf09b97b25618a20a13e2f10fa5bf8161a879cc2ae797a6b4cf2d9df31debb9905ccfec97de605d21c61ab8531b7f3c9da5f03931f8a0642de48211f5f52ffea10f392a047669985da454a28f080961a6c2b62daa17f33cd60a4971f48d2d909394a55f48117ace43d708e6b77d3dc46d8bc017d4d1abb77b7428c042b06f2f99d8d07c9879d99600127a31985f1099bbd7d6c1519ede8f5eeb4a610b349ac01ea2350691756bd105c974a53eddb35d1d4100b012e522ab41f4c5f2fde76b59cb8b96d885cfe4080d1328a0d636cc0edc05800b76acca8fef672084d1f52a8bbd8e0993320992c7ffbae17c408441e0ee883fc8a8b05e22f5ff7f8d1b48c74c468c467a028f09fd7ce91109a570a2d5c4d5f4fa18c5dd3e4562afe24ef771901f59af645898acef088abae07e92d52eb2de55045bb1b7c4164ef2d7a6cac15eeb926d7ea2f08b66e1f759f3aee44614725aa3c7482b30844c143ff85b53f1e583c501257dddd096b81268daa303f17234c2333541f0bb8e190648c5807c866d7193228609adb948686f7de294a802cc38f7fe5208f5ea3196d0167b9bdd02f0d2a5221ca508f893af5c4b4bb9f4f520fd84289b3dbe7e61497a7e2a584037ea637b6981127174af57b471df4b2768fd79c1540fb3edf2ea22cb69bec0cf8d933d9c6fdd645e850591cca3d62c0cc0',
  },
];

// Document 3 section 5: 128-EIA3 test sets 1 to 5 (also TS 33.501 D.4.7).
const eia3Sets = [
  {
    set: 1,
    key: '00000000000000000000000000000000',
    count: 0,
    bearer: 0,
    direction: 0,
    lengthBits: 1,
    message: '00000000',
    mac: 'c8a9595e',
  },
  {
    set: 2,
    key: '47054125561eb2dda94059da05097850',
    count: 0x561eb2dd,
    bearer: 0x14,
    direction: 0,
    lengthBits: 90,
    message: '000000000000000000000000',
    mac: '6719a088',
  },
  {
    set: 3,
    key: 'c9e6cec4607c72db000aefa88385ab0a',
    count: 0xa94059da,
    bearer: 0x0a,
    direction: 1,
    lengthBits: 577,
    message:
      '983b41d47d780c9e1ad11d7eb70391b1de0b35da2dc62f83e7b78d6306ca0ea07e941b7be91348f9fcb170e2217fecd97f9f68adb16e5d7d21e569d280ed775cebde3f4093c5388100000000',
    mac: 'fae8ff0b',
  },
  {
    set: 4,
    key: 'c8a48262d0c2e2bac4b96ef77e80ca59',
    count: 0x05097850,
    bearer: 0x10,
    direction: 1,
    lengthBits: 2079,
    message:
      'b546430bf87b4f1ee834704cd6951c36e26f108cf731788f48dc34f1678c05221c8fa7ff2f39f477e7e49ef60a4ec2c3de24312a96aa26e1cfba57563838b297f47e8510c779fd6654b143386fa639d31edbd6c06e47d159d94362f26aeeedee0e4f49d9bf8412995415bfad56ee82d1ca7463abf085b082b09904d6d990d43cf2e062f40839d93248b1eb92cdfed5300bc148280430b6d0caa094b6ec8911ab7dc36824b824dc0af6682b0935fde7b492a14dc2f43648038da2cf79170d2d50133fd49416cb6e33bea90b8bf4559b03732a01ea290e6d074f79bb83c10e580015cc1a85b36b5501046e9c4bdcae5135690b8666bd54b7a703ea7b6f220a5469a568027e',
    mac: '004ac4d6',
  },
  {
    set: 5,
    key: '6b8b08ee79e0b5982d6d128ea9f220cb',
    count: 0x561eb2dd,
    bearer: 0x1c,
    direction: 0,
    lengthBits: 5670,
    message:
      '5bad724710ba1c56d5a315f8d40f6e093780be8e8de07b6992432018e08ed96a5734af8bad8a575d3a1f162f85045cc770925571d9f5b94e454a77c16e72936bf016ae157499f0543b5d52caa6dbeab697d2bb73e41b8075dce79b4b86044f661d4485a543dd78606e0419e8059859d3cb2b67ce0977603f81ff839e331859544cfbc8d00fef1a4c8510fb547d6b06c611ef44f1bce107cfa45a06aab360152b28dc1ebe6f7fe09b0516f9a5b02a1bd84bb0181e2e89e19bd8125930d178682f3862dc51b636f04e720c47c3ce51ad70d94b9b2255fbae906549f499f8c6d39947ed5e5df8e2def113253e7b08d0a76b6bfc68c812f375c79b8fe5fd85976aa6d46b4a2339d8ae5147f680fbe70f978b38effd7b2f7866a22554e193a94e98a68b74bd25bb2b3f5fb0a5fd59887f9ab68159b7178d5b7b677cb546bf41eadca216fc10850128f8bdef5c8d89f96afa4fa8b54885565ed838a950fee5f1c3b0a4f6fb71e54dfd169e82cecc7266c850e67c5ef0ba960f5214060e71eb172a75fc1486835cbea6534465b055c96a72e4105224182325d830414b40214daa8091d2e0fb010ae15c6de90850973bdf1e423be148a237b87a0c9f34d4b47605b803d743a86a90399a4af396d3a1200a62f3d9507962e8e5bee6d3da2bb3f7237664ac7a292823900bc63503b29e80d63f6067bf8e1716ac25beba350deb62a99fe03185eb4f69937ecd387941fda544ba67db0911774938b01827bcc69c92b3f772a9d2859ef003398b1f6bbad7b574f7989a1d10b2df798e0dbf30d6587464d24878cd00c0eaee8a1a0cc753a27979e11b41db1de3d5038afaf49f5c682c3748d8a3a9ec54e6a371275f1683510f8e4f90938f9ab6e134c2cfdf4841cba88e0cff2b0bcc8e6adcb71109b5198fecf1bb7e5c531aca50a56a8a3b6de59862d41fa113d9cd957808f08571d9a4bb792af271f6cc6dbb8dc7ec36e36be1ed308164c31c7c0afc541c000000',
    mac: '0ca12792',
  },
];

describe('ZUC key stream (128-EEA3 & 128-EIA3 Document 3, section 3)', () => {
  for (const { set, key, iv, z } of keystreamSets) {
    it(`test set ${set}: z1, z2`, () => {
      assert.equal(wordsHex(zucKeystream(hex(key), hex(iv), 2)), z);
    });
  }

  it('test set 4: z1, z2 and z2000', () => {
    const z = zucKeystream(
      hex('4d320bfad4c285bfd6b8bd00f39d8b41'),
      hex('52959daba0bf176ece2dc315049eb574'),
      2000,
    );
    assert.equal(wordsHex(z.subarray(0, 2)), 'ed4400e70633e5c5');
    assert.equal(wordsHex(z.subarray(1999)), '7a574cdb');
  });
});

describe('128-EEA3 (Document 3, section 4)', () => {
  for (const { set, key, count, bearer, direction, lengthBits, plaintext, ciphertext } of eea3Sets) {
    it(`test set ${set} (${lengthBits} bits): enciphers, and deciphers back`, () => {
      const bytes = Math.ceil(lengthBits / 8);
      const out = eea3(hex(key), count, bearer, direction, hex(plaintext), lengthBits);
      assert.equal(out.toString('hex'), masked(ciphertext, lengthBits).subarray(0, bytes).toString('hex'));
      const back = eea3(hex(key), count, bearer, direction, out, lengthBits);
      assert.equal(back.toString('hex'), masked(plaintext, lengthBits).subarray(0, bytes).toString('hex'));
    });
  }
});

describe('128-EIA3 (Document 3, section 5)', () => {
  for (const { set, key, count, bearer, direction, lengthBits, message, mac } of eia3Sets) {
    it(`test set ${set} (${lengthBits} bits)`, () => {
      assert.equal(eia3(hex(key), count, bearer, direction, hex(message), lengthBits).toString('hex'), mac);
    });
  }

  it('ignores the bits after LENGTH, and the last bit up to it counts', () => {
    const { key, count, bearer, direction, lengthBits, message, mac } =
      eia3Sets[2] as (typeof eia3Sets)[number];
    const after = hex(message);
    after[72] = (after[72] ?? 0) | 0x7f;
    assert.equal(eia3(hex(key), count, bearer, direction, after, lengthBits).toString('hex'), mac);
    const last = hex(message);
    last[72] = (last[72] ?? 0) ^ 0x80;
    assert.notEqual(eia3(hex(key), count, bearer, direction, last, lengthBits).toString('hex'), mac);
  });
});

// The published bit strings padded to whole bytes (or words) with zeros after the last bit.
function masked(value: string, lengthBits: number): Buffer {
  const bytes = hex(value);
  const spare = Math.ceil(lengthBits / 8) * 8 - lengthBits;
  const last = Math.ceil(lengthBits / 8) - 1;
  bytes[last] = (bytes[last] ?? 0) & ((0xff << spare) & 0xff);
  return bytes;
}
