import { isIPv4, isIPv6 } from 'node:net';
import { InvalidError } from '../errors.ts';

/**
 * The one spelling of an IP address that records store and filters compare: IPv4 dotted quad, IPv6 in
 * the RFC 5952 form (lower case, zeros compressed; IPv4-mapped addresses in hex), as the WHATWG URL
 * parser writes it. Undefined when the text is not an address.
 */
export function canonicalIp(value: string): string | undefined {
  if (isIPv4(value)) return value;
  if (isIPv6(value) && !value.includes('%')) return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  return undefined;
}

/** An endpoint filter: an address, a port, or both. */
export interface EndpointFilter {
  ip?: string;
  port?: number;
}

function parsePort(text: string, field: string): number {
  const port = Number(text);
  if (port > 65535) throw new InvalidError(`${field} port must be 0..65535`);
  return port;
}

/**
 * Parses a flow `source`/`destination` filter: `IP`, `IP:port` (IPv4), `[IPv6]:port` or `:port`
 * (decisions section 11). A bare IPv6 address is an `IP`.
 */
export function parseEndpointFilter(value: string, field: string): EndpointFilter {
  const invalid = () =>
    new InvalidError(`${field} must be IP, IP:port, [IPv6]:port or :port (got "${value.slice(0, 64)}")`);
  const portOnly = /^:(\d{1,5})$/.exec(value);
  if (portOnly) return { port: parsePort(portOnly[1] ?? '', field) };
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(value);
  if (bracketed) {
    const ip = isIPv6(bracketed[1] ?? '') ? canonicalIp(bracketed[1] ?? '') : undefined;
    if (!ip) throw invalid();
    return { ip, port: parsePort(bracketed[2] ?? '', field) };
  }
  const ipOnly = canonicalIp(value);
  if (ipOnly) return { ip: ipOnly };
  const v4WithPort = /^([\d.]+):(\d{1,5})$/.exec(value);
  if (v4WithPort && isIPv4(v4WithPort[1] ?? '')) {
    return { ip: v4WithPort[1], port: parsePort(v4WithPort[2] ?? '', field) };
  }
  throw invalid();
}
