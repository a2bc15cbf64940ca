/* TCP segmentation and checksums of TUN reads (tun-gso.h). */
#include "tun-gso.h"

#include "inet-checksum.h"
#include "net-bytes.h"

#include <string.h>

/* The TCP checksum field of a packet whose TCP header starts at `tcp`: over the pseudo-header and
 * the segment, with the field taken as zero. */
static void tcp_checksum(uint8_t *packet, size_t length, size_t tcp, bool ipv6) {
  uint8_t *th = packet + tcp;
  th[16] = th[17] = 0;
  uint64_t acc = inet_tcp_pseudo(packet, length - tcp, ipv6);
  uint16_t c = (uint16_t)~inet_fold(inet_sum(th, length - tcp, acc));
  memcpy(th + 16, &c, 2);
}

bool tun_gso_parse(uint8_t *read, size_t length, tun_gso *out) {
  struct virtio_net_hdr h;
  if (length < TUN_VNET_HDR + 1) return false;
  memcpy(&h, read, sizeof h);
  memset(out, 0, sizeof *out);
  out->packet = read + TUN_VNET_HDR;
  out->length = length - TUN_VNET_HDR;
  out->pieces = 1;
  const uint8_t *p = out->packet;
  size_t n = out->length;
  /* The TUN's header is in the host's byte order (no TUNSETVNETLE/BE). */
  bool needs_csum = h.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
  uint8_t type = h.gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
  if (type == VIRTIO_NET_HDR_GSO_NONE) {
    if (!needs_csum) return true;
    /* The field must lie inside the packet; its seed (the pseudo-header sum) is summed with it. */
    if ((size_t)h.csum_start + h.csum_offset + 2 > n) return false;
    out->needs_csum = true;
    out->csum_start = h.csum_start;
    out->csum_offset = h.csum_offset;
    return true;
  }
  if (type != VIRTIO_NET_HDR_GSO_TCPV4 && type != VIRTIO_NET_HDR_GSO_TCPV6) return false;
  out->ipv6 = type == VIRTIO_NET_HDR_GSO_TCPV6;
  if (out->ipv6 ? n < 40 || p[0] >> 4 != 6 : n < 20 || p[0] >> 4 != 4) return false;
  /* The read is the whole datagram its header describes: a short read is not cut as if it were whole. */
  if (out->ipv6 ? (size_t)get16(p + 4) + 40 != n : get16(p + 2) != n) return false;
  /* Where TCP starts: csum_start when given (past any IPv6 extension headers), else right after the
   * fixed header. hdr_len is only a hint of how much is linear (virtio 1.2 5.1.6.2), so the headers
   * copied into each piece are measured here. */
  size_t tcp = out->ipv6 ? 40 : 4 * (size_t)(p[0] & 0x0f);
  if (needs_csum) tcp = h.csum_start;
  else if (out->ipv6 ? p[6] != IPPROTO_TCP : p[9] != IPPROTO_TCP) return false;
  if (out->ipv6 ? tcp < 40 : tcp != 4 * (size_t)(p[0] & 0x0f) || tcp < 20) return false;
  if (tcp + 20 > n) return false;
  size_t header = tcp + 4 * (size_t)(p[tcp + 12] >> 4);
  if (header < tcp + 20 || header > n || h.gso_size == 0) return false;
  out->gso = true;
  out->ip_header = tcp;
  out->header = header;
  out->mss = h.gso_size;
  size_t payload = n - header;
  out->pieces = payload <= out->mss ? 1 : (unsigned)((payload + out->mss - 1) / out->mss);
  return true;
}

size_t tun_gso_piece_max(const tun_gso *g) {
  return g->gso && g->pieces > 1 ? g->header + g->mss : g->length;
}

size_t tun_gso_piece(const tun_gso *g, unsigned index, uint8_t *out) {
  if (!g->gso) {
    memcpy(out, g->packet, g->length);
    if (g->needs_csum) {
      /* As the kernel's skb_checksum_help: a sum of 0 is sent as 0xffff (UDP's "no checksum"). */
      uint16_t c = (uint16_t)~inet_fold(inet_sum(out + g->csum_start, g->length - g->csum_start, 0));
      if (c == 0) c = 0xffff;
      memcpy(out + g->csum_start + g->csum_offset, &c, 2);
    }
    return g->length;
  }
  size_t offset = g->header + (size_t)index * g->mss;
  size_t payload = g->length - offset < g->mss ? g->length - offset : g->mss;
  size_t length = g->header + payload;
  memcpy(out, g->packet, g->header);
  memcpy(out + g->header, g->packet + offset, payload);
  if (g->ipv6) {
    put16(out + 4, (uint16_t)(length - 40));
  } else {
    /* RFC 791 3.1: each piece is a datagram of its own, with the next identification. */
    size_t ihl = 4 * (size_t)(out[0] & 0x0f);
    put16(out + 2, (uint16_t)length);
    put16(out + 4, (uint16_t)(get16(out + 4) + index));
    out[10] = out[11] = 0;
    uint16_t c = (uint16_t)~inet_fold(inet_sum(out, ihl, 0));
    memcpy(out + 10, &c, 2);
  }
  uint8_t *th = out + g->ip_header;
  put32(th + 4, get32(th + 4) + (uint32_t)(index * g->mss));
  /* As a TSO NIC and the kernel's tcp_gso_segment: FIN and PSH end the segment, CWR starts it. */
  if (index + 1 < g->pieces) th[13] &= (uint8_t) ~(TCP_FIN | TCP_PSH);
  if (index > 0) th[13] &= (uint8_t)~TCP_CWR;
  tcp_checksum(out, length, g->ip_header, g->ipv6);
  return length;
}
