// The splitter gives the fewest parts in the smallest alphabet, and the reassembler puts them back while
// holding bounded memory and refusing duplicates and loops.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  concatenationOf,
  decodeDcs,
  decodeUserData,
  encodeDcs,
  SmsReassembler,
  splitText,
  type SplitMessage,
} from '../../../src/network/sms/index.ts';
import { prng } from '../../helpers/openapi-fuzz.ts';

function split(text: string, referenceBits: 8 | 16 = 8): SplitMessage {
  const result = splitText(text, {
    reference: 0x1234 & (referenceBits === 8 ? 0xff : 0xffff),
    referenceBits,
  });
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.value;
}

/** Decodes each part as a receiver would and reassembles them, in the order given. */
function receive(message: SplitMessage, order?: number[]): string {
  const reassembler = new SmsReassembler();
  const decoded = message.parts.map((part) => {
    const content = decodeUserData(part.userData, decodeDcs(encodeDcs(message.alphabet)));
    assert.ok(content.ok);
    assert.equal(content.value.text, part.text);
    return content.value;
  });
  if (decoded.length === 1) return decoded[0]?.text ?? '';
  let result;
  for (const i of order ?? decoded.map((_, n) => n)) {
    const content = decoded[i];
    const concat = concatenationOf(content?.header);
    assert.ok(concat && content?.text !== undefined);
    result = reassembler.add('+46708251358', concat, content.text, 0);
  }
  assert.equal(result?.status, 'complete');
  return result.status === 'complete' ? (result.content as string) : '';
}

describe('splitText', () => {
  it('keeps 160 GSM 7-bit characters in one part and splits 161 into 153 + 8', () => {
    assert.equal(split('a'.repeat(160)).parts.length, 1);
    const two = split('a'.repeat(161));
    assert.equal(two.alphabet, 'gsm7');
    assert.deepEqual(
      two.parts.map((p) => [p.text.length, p.userData.length]),
      [
        [153, 160],
        [8, 15],
      ],
    );
    assert.equal(receive(two), 'a'.repeat(161));
  });

  it('counts extension characters as two septets and never splits an escape pair', () => {
    assert.equal(split('€'.repeat(80)).parts.length, 1);
    const parts = split(`${'a'.repeat(152)}€${'b'.repeat(10)}`).parts;
    assert.equal(parts[0]?.text, 'a'.repeat(152));
    assert.equal(parts[1]?.text, `€${'b'.repeat(10)}`);
  });

  it('falls back to UCS-2 (70 units, 67 per part) and never splits a surrogate pair', () => {
    const seventy = split('Ж'.repeat(70));
    assert.equal(seventy.alphabet, 'ucs2');
    assert.equal(seventy.parts.length, 1);
    const parts = split(`${'Ж'.repeat(66)}😀ЖЖЖ`).parts; // 71 units: two parts
    assert.deepEqual(
      parts.map((p) => p.text),
      ['Ж'.repeat(66), '😀ЖЖЖ'],
    );
    assert.equal(receive(split('ç'.repeat(200))), 'ç'.repeat(200));
  });

  it('uses a 16-bit reference when asked: 152 septets per part', () => {
    const message = split('x'.repeat(400), 16);
    assert.deepEqual(
      message.parts.map((p) => p.text.length),
      [152, 152, 96],
    );
    assert.deepEqual(concatenationOf(decodeHeader(message, 2)), {
      reference: 0x1234,
      referenceBits: 16,
      total: 3,
      sequence: 3,
    });
    assert.equal(receive(message, [2, 0, 1]), 'x'.repeat(400));
  });

  it('refuses a text needing more than 255 parts', () => {
    assert.ok(splitText('a'.repeat(153 * 255), { reference: 1 }).ok);
    assert.equal(splitText('a'.repeat(153 * 255 + 1), { reference: 1 }).ok, false);
  });
});

function decodeHeader(message: SplitMessage, part: number) {
  const content = decodeUserData(message.parts[part]!.userData, decodeDcs(encodeDcs(message.alphabet)));
  assert.ok(content.ok);
  return content.value.header;
}

describe('SmsReassembler', () => {
  const part = (sequence: number, total = 3, reference = 7) => ({
    reference,
    referenceBits: 8 as const,
    total,
    sequence,
  });

  it('refuses a duplicate part and, after completion, a resent one (a loop)', () => {
    const r = new SmsReassembler();
    assert.deepEqual(r.add('A', part(1, 2), 'x', 0), { status: 'pending', received: 1, total: 2 });
    assert.equal(r.add('A', part(1, 2), 'x', 1).status, 'refused');
    assert.deepEqual(r.add('A', part(2, 2), 'y', 2), { status: 'complete', content: 'xy' });
    assert.equal(r.add('A', part(1, 2), 'x', 3).status, 'refused', 'the loop sends it again');
    assert.equal(r.add('B', part(1, 2), 'x', 3).status, 'pending', 'another originator is another message');
  });

  it('refuses sequence numbers outside 1..total and joins octets', () => {
    const r = new SmsReassembler();
    assert.equal(r.add('A', part(0), 'x', 0).status, 'refused');
    assert.equal(r.add('A', part(4), 'x', 0).status, 'refused');
    r.add('A', part(2, 2), Uint8Array.of(3), 0);
    assert.deepEqual(r.add('A', part(1, 2), Uint8Array.of(1, 2), 0), {
      status: 'complete',
      content: Uint8Array.of(1, 2, 3),
    });
  });

  it('holds at most maxMessages incomplete messages, dropping the oldest', () => {
    const r = new SmsReassembler({ maxMessages: 2, maxBytes: 1 << 20, timeoutMs: 60_000 });
    r.add('A', part(1, 2, 1), 'a', 0);
    r.add('A', part(1, 2, 2), 'b', 0);
    r.add('A', part(1, 2, 3), 'c', 0);
    assert.equal(r.size.messages, 2);
    assert.equal(
      r.add('A', part(2, 2, 1), 'z', 0).status,
      'pending',
      'message 1 was dropped: it starts again',
    );
    assert.equal(r.add('A', part(2, 2, 3), 'z', 0).status, 'complete');
  });

  it('holds at most maxBytes of content', () => {
    const r = new SmsReassembler({ maxMessages: 100, maxBytes: 20, timeoutMs: 60_000 });
    r.add('A', part(1, 3, 1), 'aaaaa', 0); // 10 bytes (UTF-16)
    r.add('A', part(1, 3, 2), 'bbbbb', 0);
    assert.deepEqual(r.size, { messages: 2, bytes: 20 });
    r.add('A', part(1, 3, 3), 'ccccc', 0);
    assert.deepEqual(r.size, { messages: 2, bytes: 20 }, 'the oldest made room');
    assert.equal(r.add('A', part(1, 3, 4), 'd'.repeat(11), 0).status, 'refused', 'larger than the memory');
  });

  it('drops an incomplete message when its timeout passes (injected clock)', () => {
    const r = new SmsReassembler({ maxMessages: 10, maxBytes: 1000, timeoutMs: 1000 });
    r.add('A', part(1, 2), 'x', 0);
    r.expire(999);
    assert.equal(r.size.messages, 1);
    r.expire(1000);
    assert.deepEqual(r.size, { messages: 0, bytes: 0 });
    assert.equal(r.add('A', part(2, 2), 'y', 1000).status, 'pending', 'the first part is gone');
  });

  it('stays within its bounds under 100,000 random parts (fixed seed)', () => {
    const limits = { maxMessages: 50, maxBytes: 4000, timeoutMs: 5000 };
    const r = new SmsReassembler(limits);
    const random = prng(35);
    let completed = 0;
    for (let now = 0; now < 100_000; now++) {
      const total = 1 + random.int(6);
      const content = random.chance(0.5) ? 'x'.repeat(random.int(80)) : new Uint8Array(random.int(160));
      const result = r.add(
        `+4670${random.int(20)}`,
        { reference: random.int(4), referenceBits: 8, total, sequence: random.int(total + 2) },
        content,
        now,
      );
      if (result.status === 'complete') completed++;
      assert.ok(
        r.size.messages <= limits.maxMessages && r.size.bytes <= limits.maxBytes,
        JSON.stringify(r.size),
      );
    }
    assert.ok(completed > 0);
  });
});
