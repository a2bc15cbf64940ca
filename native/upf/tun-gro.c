/* TCP packets joined into GSO writes to a TUN (tun-gro.h). */
#include "tun-gro.h"

#include <linux/virtio_net.h>
#include <stdlib.h>
#include <unistd.h>

#include "inet-checksum.h"
#include "n3-socket.h"
#include "net-bytes.h"
#include "tun-gso.h"

/* The largest IP packet the TUN takes in one write. */
#define MAX_SEGMENT 65535

/* A TCP packet that may be joined: its headers' layout, payload and checksums checked. */
typedef struct {
  bool ipv6;
  size_t tcp;
  size_t header;
  size_t payload;
  uint8_t flags;
} tcp_packet;

static bool parse(const uint8_t *p, size_t n, tcp_packet *t) {
  /* The frame holds one write of at most MAX_SEGMENT: a larger packet (IPv6 allows 65,575) is written alone. */
  if (n < 40 || n > MAX_SEGMENT) return false;
  if (p[0] >> 4 == 4) {
    /* No options (GRO joins only these too), not a fragment, the whole datagram. */
    if (p[0] != 0x45 || p[9] != IPPROTO_TCP || get16(p + 2) != n || (get16(p + 6) & 0x3fff) != 0)
      return false;
    if (inet_fold(inet_sum(p, 20, 0)) != 0xffff) return false;
    t->ipv6 = false;
    t->tcp = 20;
  } else if (p[0] >> 4 == 6) {
    if (n < 60 || p[6] != IPPROTO_TCP || (size_t)get16(p + 4) + 40 != n) return false;
    t->ipv6 = true;
    t->tcp = 40;
  } else {
    return false;
  }
  t->header = t->tcp + 4 * (size_t)(p[t->tcp + 12] >> 4);
  if (t->header < t->tcp + 20 || t->header >= n) return false;
  t->payload = n - t->header;
  t->flags = p[t->tcp + 13];
  /* Plain data: ACK, with PSH or FIN only on a segment's last packet (as tcp_gro_receive). */
  if ((t->flags & (uint8_t) ~(TCP_PSH | TCP_FIN)) != TCP_ACK) return false;
  if (get16(p + t->tcp + 18) != 0) return false; /* an urgent pointer */
  return inet_fold(inet_sum(p + t->tcp, n - t->tcp, inet_tcp_pseudo(p, n - t->tcp, t->ipv6))) ==
         0xffff;
}

/* Whether `p` is the next packet of the segment held: the same addresses, ports, ACK, window and
 * options, the next identification and sequence number, no more payload than the first's. */
static bool continues(const tun_gro *g, const uint8_t *p, const tcp_packet *t) {
  const uint8_t *h = g->frame + TUN_VNET_HDR;
  if (g->length == 0 || t->ipv6 != g->ipv6 || t->header != g->header || t->payload > g->mss ||
      g->length + t->payload > MAX_SEGMENT || g->packets == TUN_GRO_MAX_PACKETS)
    return false;
  if (g->ipv6) {
    if (memcmp(h, p, 4) != 0 || memcmp(h + 6, p + 6, 34) != 0) return false;
  } else {
    if (memcmp(h, p, 2) != 0 || memcmp(h + 6, p + 6, 4) != 0 || memcmp(h + 12, p + 12, 8) != 0 ||
        get16(p + 4) != g->next_id)
      return false;
  }
  const uint8_t *a = h + g->tcp;
  const uint8_t *b = p + t->tcp;
  return memcmp(a, b, 4) == 0 && get32(b + 4) == g->next_seq && memcmp(a + 8, b + 8, 5) == 0 &&
         memcmp(a + 14, b + 14, 2) == 0 && memcmp(a + 20, b + 20, g->header - g->tcp - 20) == 0;
}

bool tun_gro_init(tun_gro *g, int fd, size_t item_size, tun_gro_written *written, void *context) {
  memset(g, 0, sizeof *g);
  g->fd = fd;
  g->written = written;
  g->context = context;
  g->item_size = item_size;
  g->frame = malloc(TUN_VNET_HDR + MAX_SEGMENT);
  /* One octet at least: malloc(0) may give NULL. */
  g->items = malloc(item_size * TUN_GRO_MAX_PACKETS + 1);
  if (g->frame != NULL && g->items != NULL) return true;
  tun_gro_free(g);
  return false;
}

void tun_gro_target(tun_gro *g, int fd) {
  if (fd == g->fd) return;
  tun_gro_flush(g);
  g->fd = fd;
}

void tun_gro_free(tun_gro *g) {
  free(g->frame);
  free(g->items);
  g->frame = NULL;
  g->items = NULL;
}

void tun_gro_flush(tun_gro *g) {
  if (g->length == 0) return;
  uint8_t *p = g->frame + TUN_VNET_HDR;
  struct virtio_net_hdr h;
  memset(&h, 0, sizeof h);
  if (g->packets > 1) {
    /* One segment of `packets` MSS-sized packets (the last may be shorter), its checksum left
     * partial: the field holds the pseudo-header sum, as a sender's TSO segment does, so that the
     * kernel can cut it again if it forwards it. The header is the first packet's. */
    if (g->ipv6) {
      put16(p + 4, (uint16_t)(g->length - 40));
    } else {
      put16(p + 2, (uint16_t)g->length);
      p[10] = p[11] = 0;
      uint16_t c = (uint16_t)~inet_fold(inet_sum(p, 20, 0));
      memcpy(p + 10, &c, 2);
    }
    uint16_t seed = inet_fold(inet_tcp_pseudo(p, g->length - g->tcp, g->ipv6));
    memcpy(p + g->tcp + 16, &seed, 2);
    h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
    h.gso_type = g->ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
    h.hdr_len = (uint16_t)g->header;
    h.gso_size = (uint16_t)g->mss;
    h.csum_start = (uint16_t)g->tcp;
    h.csum_offset = 16;
  }
  memcpy(g->frame, &h, sizeof h);
  size_t n = TUN_VNET_HDR + g->length;
  bool ok = write(g->fd, g->frame, n) == (ssize_t)n;
  unsigned packets = g->packets;
  g->length = 0;
  g->packets = 0;
  g->written(g->context, g->items, packets, ok);
}

void tun_gro_add(tun_gro *g, const uint8_t *packet, size_t length, const void *item) {
  tcp_packet t;
  bool tcp = parse(packet, length, &t);
  if (tcp && continues(g, packet, &t)) {
    memcpy(g->frame + TUN_VNET_HDR + g->length, packet + t.header, t.payload);
    if (g->item_size > 0) memcpy(g->items + g->packets * g->item_size, item, g->item_size);
    g->length += t.payload;
    g->packets++;
    g->next_seq += (uint32_t)t.payload;
    g->next_id++;
    /* The merged header carries the last packet's PSH and FIN (tcp_gro_receive), which end it. */
    g->frame[TUN_VNET_HDR + g->tcp + 13] |= t.flags & (TCP_PSH | TCP_FIN);
    if (t.payload < g->mss || (t.flags & (TCP_PSH | TCP_FIN)) != 0) tun_gro_flush(g);
    return;
  }
  tun_gro_flush(g);
  if (tcp && t.flags == TCP_ACK) {
    memcpy(g->frame + TUN_VNET_HDR, packet, length);
    if (g->item_size > 0) memcpy(g->items, item, g->item_size);
    g->length = length;
    g->tcp = t.tcp;
    g->header = t.header;
    g->mss = t.payload;
    g->ipv6 = t.ipv6;
    g->next_seq = get32(packet + t.tcp + 4) + (uint32_t)t.payload;
    g->next_id = (uint16_t)(get16(packet + 4) + 1);
    g->packets = 1;
    return;
  }
  g->written(g->context, item, 1, tun_write(g->fd, packet, length));
}
