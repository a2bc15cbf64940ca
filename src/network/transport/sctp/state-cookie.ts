import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { bytesToIp, type Decoded, ipToBytes } from './chunks.ts';

/**
 * The State Cookie (RFC 9260 5.1.3): everything the association needs, so that an INIT costs the
 * listener no state until the peer echoes the cookie back. Signed with HMAC-SHA-256 under a secret of
 * the endpoint, and stamped with its creation time so that a stale or replayed cookie is refused
 * (RFC 9260 5.1.5).
 */
export interface CookieContents {
  createdAt: number;
  lifespan: number;
  localPort: number;
  peerPort: number;
  localTag: number;
  peerTag: number;
  localInitialTsn: number;
  peerInitialTsn: number;
  peerARwnd: number;
  /** Negotiated: streams this side sends on / receives on. */
  outboundStreams: number;
  inboundStreams: number;
  /** RFC 9260 5.2.2: the existing association's tags when the INIT found one (0 otherwise). */
  localTieTag: number;
  peerTieTag: number;
  /** The peer's addresses, the INIT's source first, and the link port (UDP encapsulation) of the source. */
  peerAddresses: string[];
  linkPort: number;
}

const MAC_SIZE = 32;
const MAX_ADDRESSES = 16;

export class CookieSigner {
  readonly #secret: Buffer;

  constructor(secret: Uint8Array = randomBytes(32)) {
    this.#secret = Buffer.from(secret);
  }

  sign(c: CookieContents): Uint8Array {
    const addresses = c.peerAddresses.slice(0, MAX_ADDRESSES).map((a) => ipToBytes(a) ?? new Uint8Array(4));
    let size = 8 + 4 + 2 + 2 + 4 * 8 + 2 + 2 + 2 + 1;
    for (const a of addresses) size += 1 + a.length;
    const body = new Uint8Array(size);
    const d = new DataView(body.buffer);
    d.setFloat64(0, c.createdAt);
    d.setUint32(8, c.lifespan);
    d.setUint16(12, c.localPort);
    d.setUint16(14, c.peerPort);
    d.setUint32(16, c.localTag);
    d.setUint32(20, c.peerTag);
    d.setUint32(24, c.localInitialTsn);
    d.setUint32(28, c.peerInitialTsn);
    d.setUint32(32, c.peerARwnd);
    d.setUint32(36, c.localTieTag);
    d.setUint32(40, c.peerTieTag);
    d.setUint32(44, 0);
    d.setUint16(48, c.outboundStreams);
    d.setUint16(50, c.inboundStreams);
    d.setUint16(52, c.linkPort);
    d.setUint8(54, addresses.length);
    let o = 55;
    for (const a of addresses) {
      body[o] = a.length;
      body.set(a, o + 1);
      o += 1 + a.length;
    }
    const mac = createHmac('sha256', this.#secret).update(body).digest();
    const out = new Uint8Array(size + MAC_SIZE);
    out.set(body);
    out.set(mac, size);
    return out;
  }

  /**
   * Verifies the signature, then the age. `stale` carries how late the cookie is, in microseconds, for
   * the Stale Cookie error cause (RFC 9260 3.3.10.3).
   */
  verify(
    cookie: Uint8Array,
    now: number,
  ): Decoded<CookieContents> | { ok: false; error: 'stale'; staleness: number; peerTag: number } {
    if (cookie.length < 55 + MAC_SIZE || cookie.length > 55 + MAX_ADDRESSES * 17 + MAC_SIZE) {
      return { ok: false, error: 'cookie has a bad size' };
    }
    const body = cookie.subarray(0, cookie.length - MAC_SIZE);
    const mac = createHmac('sha256', this.#secret).update(body).digest();
    if (!timingSafeEqual(mac, cookie.subarray(cookie.length - MAC_SIZE))) {
      return { ok: false, error: 'cookie signature does not match' };
    }
    const d = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const createdAt = d.getFloat64(0);
    const lifespan = d.getUint32(8);
    if (now > createdAt + lifespan) {
      const staleness = Math.min(0xffffffff, Math.round((now - createdAt - lifespan) * 1000));
      return { ok: false, error: 'stale', staleness, peerTag: d.getUint32(20) };
    }
    const peerAddresses: string[] = [];
    let o = 55;
    for (let i = 0; i < d.getUint8(54); i++) {
      const length = body[o] ?? 0;
      peerAddresses.push(bytesToIp(body.subarray(o + 1, o + 1 + length)));
      o += 1 + length;
    }
    return {
      ok: true,
      value: {
        createdAt,
        lifespan,
        localPort: d.getUint16(12),
        peerPort: d.getUint16(14),
        localTag: d.getUint32(16),
        peerTag: d.getUint32(20),
        localInitialTsn: d.getUint32(24),
        peerInitialTsn: d.getUint32(28),
        peerARwnd: d.getUint32(32),
        localTieTag: d.getUint32(36),
        peerTieTag: d.getUint32(40),
        outboundStreams: d.getUint16(48),
        inboundStreams: d.getUint16(50),
        linkPort: d.getUint16(52),
        peerAddresses,
      },
    };
  }
}
