// IPv6 addresses as text, for the UPF's flow reports and the address pools alike.

/** RFC 5952 text: lower case, the longest run of zero groups (two or more) as `::`. */
export function ipv6Text(bytes: Uint8Array, at = 0): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(((bytes[at + 2 * i] ?? 0) << 8) | (bytes[at + 2 * i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
