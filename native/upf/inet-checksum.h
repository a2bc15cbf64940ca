/* The Internet checksum (RFC 1071) for the TUN offloads (tun-gso.c, tun-gro.c). */
#ifndef PMN_UPF_INET_CHECKSUM_H
#define PMN_UPF_INET_CHECKSUM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Sums in host order octets at an even offset of the checksummed data: the folded sum stored as it
 * is loaded is right in either byte order (RFC 1071 2 (B)). An odd last octet is padded with zero. */
static inline uint64_t inet_sum(const uint8_t *p, size_t n, uint64_t acc) {
  for (; n >= 4; p += 4, n -= 4) {
    uint32_t w;
    memcpy(&w, p, 4);
    acc += w;
  }
  if (n >= 2) {
    uint16_t w;
    memcpy(&w, p, 2);
    acc += w;
    p += 2;
    n -= 2;
  }
  if (n == 1) {
    uint16_t w = 0;
    memcpy(&w, p, 1);
    acc += w;
  }
  return acc;
}

static inline uint16_t inet_fold(uint64_t acc) {
  while (acc >> 16) acc = (acc & 0xffff) + (acc >> 16);
  return (uint16_t)acc;
}

/* The TCP pseudo-header of an IP packet (RFC 9293 3.1 for IPv4, RFC 8200 8.1 for IPv6) with a TCP
 * length of `tcp_length`. */
static inline uint64_t inet_tcp_pseudo(const uint8_t *packet, size_t tcp_length, bool ipv6) {
  uint64_t acc = ipv6 ? inet_sum(packet + 8, 32, 0) : inet_sum(packet + 12, 8, 0);
  return acc + htons(IPPROTO_TCP) + htons((uint16_t)tcp_length);
}

#endif
