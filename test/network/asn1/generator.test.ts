import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { Generator } from '../../../src/network/asn1/generator.ts';
import { toHex } from '../../../src/network/asn1/hex.ts';
import { parseModules } from '../../../src/network/asn1/parser.ts';
import { PerReader } from '../../../src/network/asn1/per-reader.ts';
import { PerWriter } from '../../../src/network/asn1/per-writer.ts';

const RUNTIME = resolve(import.meta.dirname, '../../../src/network/asn1');

/** Version 1 of a module, and version 2 that extends it (X.680 52: extension additions). */
const V1 = `Test DEFINITIONS AUTOMATIC TAGS ::= BEGIN
maxColours INTEGER ::= 7
Msg ::= SEQUENCE {
  a INTEGER (0..maxColours),
  b Colour OPTIONAL,
  c CHOICE { x NULL, y BOOLEAN, ... },
  ...
}
Colour ::= ENUMERATED { red, green, ... }
END`;
const V2 = V1.replace(
  '  ...\n}',
  '  ...,\n  d INTEGER (0..255),\n  [[ e BOOLEAN, f OCTET STRING (SIZE (2)) OPTIONAL ]]\n}',
)
  .replace('{ red, green, ... }', '{ red, green, ..., blue }')
  .replace('y BOOLEAN, ... }', 'y BOOLEAN, ..., z INTEGER (0..3) }');

interface Codec {
  decodeMsg: (r: PerReader) => Record<string, unknown>;
  encodeMsg: (w: PerWriter, v: Record<string, unknown>) => void;
}

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Generates a codec from ASN.1 text into a temporary folder and loads it. */
async function load(text: string, aligned: boolean): Promise<Codec> {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-asn1-'));
  dirs.push(dir);
  const files = new Generator(parseModules(text), {
    aligned,
    runtime: RUNTIME,
    source: 'a test module',
  }).generate();
  for (const [name, content] of Object.entries(files) as [string, string][])
    writeFileSync(join(dir, name), content);
  // tsImport: the suite also runs from compiled JavaScript, without tsx's loader (docs/testing.md).
  return (await tsImport(pathToFileURL(join(dir, 'codec.ts')).href, import.meta.url)) as Codec;
}

function encode(codec: Codec, aligned: boolean, value: Record<string, unknown>): string {
  const w = new PerWriter(aligned);
  codec.encodeMsg(w, value);
  return toHex(w.finish());
}

/** An IE pair container (X.681 objects with two open types per id): both would share the IE's key. */
const PAIR = `Test DEFINITIONS AUTOMATIC TAGS ::= BEGIN
TEST-PAIR ::= CLASS { &id INTEGER UNIQUE, &FirstValue, &SecondValue }
WITH SYNTAX { ID &id FIRST &FirstValue SECOND &SecondValue }
Pair {TEST-PAIR : IEsSetParam} ::= SEQUENCE {
  id TEST-PAIR.&id ({IEsSetParam}),
  firstValue TEST-PAIR.&FirstValue ({IEsSetParam}{@id}),
  secondValue TEST-PAIR.&SecondValue ({IEsSetParam}{@id})
}
id-X INTEGER ::= 1
Pairs TEST-PAIR ::= { { ID id-X FIRST INTEGER SECOND BOOLEAN } }
Msg ::= SEQUENCE { p Pair {{Pairs}} }
END`;

describe('generator on a small module', () => {
  it('encodes root components bit by bit as X.691 says, in both variants', async () => {
    // ext 0, b present 1, a=5 in 3 bits 101, Colour: ext 0 + index 1, CHOICE: ext 0 + index 1, y: 1.
    const value = { a: 5, b: 'green', c: { choice: 'y', value: true } };
    for (const aligned of [true, false]) {
      const codec = await load(V1, aligned);
      assert.equal(encode(codec, aligned, value), '6ac0');
      assert.deepEqual(codec.decodeMsg(new PerReader(Buffer.from('6ac0', 'hex'), aligned)), {
        a: 5,
        b: 'green',
        c: { choice: 'y', value: true },
      });
    }
  });

  it('keeps extension additions it does not know as raw open types and re-encodes them identically', async () => {
    const aligned = true;
    const v1 = await load(V1, aligned);
    const v2 = await load(V2, aligned);
    const newer = encode(v2, aligned, {
      a: 1,
      b: 'blue',
      c: { choice: 'z', value: 2 },
      d: 200,
      e: true,
      f: Uint8Array.of(0xab, 0xcd),
    });
    const older = v1.decodeMsg(new PerReader(Buffer.from(newer, 'hex'), aligned));
    assert.equal(older.b, 0, 'an unknown enumeration addition is kept as its index');
    assert.deepEqual(older.c, { choice: null, index: 0, value: Uint8Array.of(0x80) });
    assert.equal((older.unknownExtensions as unknown[]).length, 2);
    assert.equal(encode(v1, aligned, older), newer);
    // And the newer codec reads it all back.
    const back = v2.decodeMsg(new PerReader(Buffer.from(newer, 'hex'), aligned));
    assert.equal(back.d, 200);
    assert.equal(back.e, true);
    assert.deepEqual(back.f, Uint8Array.of(0xab, 0xcd));
  });

  it('refuses an IE with two open types, whose values would share the key named after the IE', () => {
    const generator = new Generator(parseModules(PAIR), {
      aligned: true,
      runtime: RUNTIME,
      source: 'a test',
    });
    assert.throws(() => generator.generate(), /Pair_Pairs has 2 open types under one IE name/);
  });
});
