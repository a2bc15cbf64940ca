/** What both sides of the raw interop tests send: sizes around the path MTU and up to 64 KiB. */
export const SIZES = [1, 2, 100, 1000, 1199, 1200, 1201, 1452, 1500, 4000, 16384, 65536];
export const STREAMS = [0, 1, 2, 3];

export function pattern(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let k = 0; k < size; k++) bytes[k] = (k * 7 + seed) & 0xff;
  return bytes;
}
