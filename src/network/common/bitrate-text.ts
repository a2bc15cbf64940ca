// The API's bitrate text, read by the AMF (the subscribed UE-AMBR) and the SMF (session AMBRs).

/**
 * The API's bitrate form (`<number> Mbps|Gbps`, management-api.md conventions) in bits per second;
 * undefined for anything else.
 */
export function parseBitrate(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?) (Mbps|Gbps)$/.exec(text.trim());
  if (match === null) return undefined;
  const bps = Number(match[1]) * (match[2] === 'Gbps' ? 1e9 : 1e6);
  return Number.isSafeInteger(Math.round(bps)) ? Math.round(bps) : undefined;
}

/**
 * `bps` in that form: Gbps when it is whole gigabits, else Mbps (decimals down to 1 bit/s), so that
 * `parseBitrate` reads the same number back.
 */
export function formatBitrate(bps: number): string {
  if (bps >= 1e9 && bps % 1e9 === 0) return `${bps / 1e9} Gbps`;
  return `${Number((bps / 1e6).toFixed(6))} Mbps`;
}
