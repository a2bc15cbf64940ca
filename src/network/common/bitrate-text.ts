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
