/* The forwarders' side of a TUN device opened with IFF_VNET_HDR and TUNSETOFFLOAD (TUN_F_CSUM |
 * TUN_F_TSO4 | TUN_F_TSO6; n3-socket.h tun_open): each read starts with a struct virtio_net_hdr and
 * may hold a TCP segment of up to 64 KiB (GSO) or a packet whose checksum is left to the "device".
 * This module does what a NIC would: cuts a GSO segment into MSS-sized packets and finishes the
 * checksums, so that what goes into GTP-U is the packets a wire would carry. */
#ifndef PMN_UPF_TUN_GSO_H
#define PMN_UPF_TUN_GSO_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The header in front of every read and write (the kernel's default TUNSETVNETHDRSZ). */
#define TUN_VNET_HDR sizeof(struct virtio_net_hdr)

/* One read, parsed. */
typedef struct {
  uint8_t *packet; /* the IP packet after the virtio_net_hdr */
  size_t length;
  bool gso;        /* a TCP segment to cut into `pieces` packets of `mss` payload octets */
  bool ipv6;
  size_t ip_header; /* offset of the TCP header (IPv6: after any extension headers) */
  size_t header;    /* IP + TCP headers, copied in front of every piece */
  size_t mss;
  unsigned pieces; /* 1 when not GSO */
  /* A checksum to finish (VIRTIO_NET_HDR_F_NEEDS_CSUM) of a packet that is not GSO. */
  bool needs_csum;
  size_t csum_start;
  size_t csum_offset;
} tun_gso;

/* Parses a read of `length` octets (virtio_net_hdr included). Returns false when it cannot be
 * handled: shorter than its header, a GSO type other than TCPv4/TCPv6 (the TUN offers no other),
 * headers that do not fit or do not match the GSO type, a checksum offset outside the packet. */
bool tun_gso_parse(uint8_t *read, size_t length, tun_gso *out);

/* The largest piece: what `out` of tun_gso_piece must hold. */
size_t tun_gso_piece_max(const tun_gso *g);

/* Writes piece `index` (< pieces) to `out`: for GSO the headers with IPv4 total length,
 * identification + index and header checksum, or IPv6 payload length; sequence number advanced by
 * index * mss; FIN and PSH on the last piece only, CWR on the first only; the TCP checksum over the
 * pseudo-header (RFC 9293 3.1, RFC 8200 8.1). Otherwise the packet with its checksum finished.
 * Returns the piece's length. */
size_t tun_gso_piece(const tun_gso *g, unsigned index, uint8_t *out);

#endif
