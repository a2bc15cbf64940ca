import { describe, expect, it } from 'vitest';
import { base64Bytes, hexDumpLines } from './hex-dump.ts';

describe('hex dump', () => {
  it('prints offsets, 16 bytes a line in two groups of 8, and printable ASCII', () => {
    const bytes = Uint8Array.from([...Array(16).keys()].map((i) => 0x41 + i).concat([0x00, 0x7f, 0x20]));
    expect(hexDumpLines(bytes)).toEqual([
      '0000  41 42 43 44 45 46 47 48  49 4a 4b 4c 4d 4e 4f 50  ABCDEFGHIJKLMNOP',
      '0010  00 7f 20                                          .. ',
    ]);
  });

  it('prints nothing for no bytes, and a short line padded so the ASCII column stays aligned', () => {
    expect(hexDumpLines(new Uint8Array())).toEqual([]);
    const [line] = hexDumpLines(Uint8Array.from([0xff]));
    expect(line).toBe(`0000  ff${' '.repeat(46)}  .`);
  });

  it('reads base64 and refuses what is not', () => {
    expect(base64Bytes('AAEC/w==')).toEqual(Uint8Array.from([0, 1, 2, 255]));
    expect(base64Bytes('')).toEqual(new Uint8Array());
    expect(base64Bytes('not base64!')).toBeUndefined();
    expect(base64Bytes('AAE')).toBeUndefined();
  });
});
