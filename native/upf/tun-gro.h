/* The other half of tun-gso.h: packets going into a TUN opened with IFF_VNET_HDR and TSO
 * (n3-socket.h tun_open) joined, as a NIC driver's GRO joins them, into one TCP segment of up to
 * 64 KiB written with a GSO virtio_net_hdr, so that the receiving stack runs once per segment instead
 * of once per packet. Only what the kernel's TCP GRO would join is joined (consecutive in-order
 * packets of one connection with the same headers but lengths, identification and sequence number),
 * and only packets whose IPv4 header and TCP checksums are right: a written segment's checksum is
 * not checked again by the kernel. Everything else is written as it is, in order. */
#ifndef PMN_UPF_TUN_GRO_H
#define PMN_UPF_TUN_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Packets in one written segment at most (the kernel's GRO joins up to 64 too). */
#define TUN_GRO_MAX_PACKETS 64

/* Told of each write: the items of the packets it carried (`packets` of them, `item_size` octets
 * each, oldest first, as given to tun_gro_add) and whether the kernel took it. What a packet counts
 * (its session's counters, its flow) is counted here, once it is written: every added packet is told
 * of exactly once, in the order added. */
typedef void tun_gro_written(void *context, const void *items, unsigned packets, bool ok);

typedef struct {
  int fd;
  tun_gro_written *written;
  void *context;
  uint8_t *frame; /* virtio_net_hdr + the segment held */
  size_t item_size;
  uint8_t *items; /* the items of the packets held, TUN_GRO_MAX_PACKETS at most */
  size_t length;  /* of the IP packet held, 0 when none */
  size_t tcp;     /* offset of its TCP header */
  size_t header;  /* IP + TCP headers */
  size_t mss;     /* payload of its first packet: every packet but the last has as much */
  uint32_t next_seq;
  uint16_t next_id;
  unsigned packets;
  bool ipv6;
} tun_gro;

/* `item_size`: the octets of what each packet counts once written (tun_gro_written; 0 when only the
 * packets are counted). False when out of memory. */
bool tun_gro_init(tun_gro *g, int fd, size_t item_size, tun_gro_written *written, void *context);
/* The TUN the next packets go to (one joiner for several TUNs): what is held for another is written
 * first. */
void tun_gro_target(tun_gro *g, int fd);
void tun_gro_free(tun_gro *g);
/* A packet for the TUN with its item (copied; NULL when item_size is 0): joins the segment held, or
 * the held one is written and this one held (a TCP packet that may start a segment) or written too. */
void tun_gro_add(tun_gro *g, const uint8_t *packet, size_t length, const void *item);
/* Writes the segment held, if any: at the end of every batch of packets. */
void tun_gro_flush(tun_gro *g);

#endif
