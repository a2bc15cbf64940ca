/**
 * A UE Radio Capability as the IE carries it (TS 38.413 9.3.1.74): an RRC UERadioAccessCapabilityInformation
 * (TS 38.331, UPER) whose ue-RadioAccessCapabilityInfo is an empty UE-CapabilityRAT-ContainerList, the
 * octet string filled with `fill` to `size` bytes in all: test filler past the list's encoding, which
 * tshark's nr-rrc dissector skips, so sizes and contents can differ.
 */
export function capability(size: number, fill: number): Uint8Array {
  // Bits: criticalExtensions c1 (0), ueRadioAccessCapabilityInformation (000), no nonCriticalExtension (0),
  // then the octet string's length determinant (X.691 11.9: 8 bits below 128, else 10 + 14 bits).
  const contentLength = size - (size - 2 < 128 ? 2 : 3);
  const bits: number[] = [0, 0, 0, 0, 0];
  const push = (value: number, width: number): void => {
    for (let i = width - 1; i >= 0; i -= 1) bits.push((value >> i) & 1);
  };
  if (contentLength < 128) push(contentLength, 8);
  else push(0x8000 | contentLength, 16);
  // The list's SIZE (0..8) in 4 bits: 0; then the filler.
  push(0, 8);
  for (let i = 1; i < contentLength; i += 1) push(fill, 8);
  while (bits.length % 8 !== 0) bits.push(0);
  const bytes = new Uint8Array(bits.length / 8);
  bits.forEach((bit, i) => {
    bytes[i >> 3]! |= bit << (7 - (i & 7));
  });
  return bytes;
}
