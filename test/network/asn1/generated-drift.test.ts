import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROTOCOLS, generate, sha256 } from '../../../scripts/asn1-generate.ts';

const root = join(import.meta.dirname, '../../..');

// Each committed file starts with the hashes of the generator output it was formatted from and of its
// own text (scripts/asn1-generate.ts): regenerating in memory catches a changed generator or ASN.1,
// and the text hash catches a hand edit, without formatting megabytes again.
describe('committed generated codecs match the generator', () => {
  for (const [name, protocol] of Object.entries(PROTOCOLS)) {
    it(`${name}: ${protocol.out} is what scripts/asn1-generate.ts writes`, () => {
      const files = generate(protocol);
      for (const [file, raw] of Object.entries(files) as [string, string][]) {
        const committed = readFileSync(join(root, protocol.out, file), 'utf8');
        const newline = committed.indexOf('\n');
        const header =
          /^\/\/ asn1-generate: generator output sha256 ([0-9a-f]{64}), file sha256 ([0-9a-f]{64})$/.exec(
            committed.slice(0, newline),
          );
        assert.ok(header, `${file}: no generator stamp; run: tsx scripts/asn1-generate.ts ${name}`);
        assert.equal(
          header[1],
          sha256(raw),
          `${file} drifted from the generator; run: tsx scripts/asn1-generate.ts ${name}`,
        );
        assert.equal(header[2], sha256(committed.slice(newline + 1)), `${file} was edited by hand`);
      }
    });
  }
});
