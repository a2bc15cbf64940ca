/**
 * A message's bytes as a hex dump, 16 bytes a line: the offset (hex), the bytes, and their printable ASCII
 * (`.` otherwise), as Wireshark and `xxd` show them, so an offset read here is found there.
 */
export function hexDumpLines(bytes: Uint8Array): string[] {
  const lines: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const row = bytes.subarray(offset, offset + 16);
    const hex = Array.from(row, (byte) => byte.toString(16).padStart(2, '0'));
    // A wider gap after the eighth byte, as both tools print it.
    const left = hex.slice(0, 8).join(' ');
    const right = hex.slice(8).join(' ');
    const ascii = Array.from(row, (byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.'));
    lines.push(
      `${offset.toString(16).padStart(4, '0')}  ${`${left}  ${right}`.padEnd(48)}  ${ascii.join('')}`,
    );
  }
  return lines;
}

/** Base64 (as the API gives raw messages) to bytes; undefined when it is not base64. */
export function base64Bytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const binary = atob(text);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}
