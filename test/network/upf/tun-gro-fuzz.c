/* A fixed-seed fuzz of native/upf/tun-gro.c for tun-gro-fuzz.test.ts: argv[1] sequences of packets
 * (seed argv[2]), each a run of one TCP connection's packets as a sender's TSO cuts them (IPv4 or
 * IPv6, options or none, MSS 1 to 1460, up to 100 packets, PSH or FIN at the end) with mutations: a
 * flipped octet, other flags, an urgent pointer, IPv4 options or a fragment, another ACK, window or
 * identification, a sequence gap, a shorter or longer payload, a wrong checksum, a packet truncated
 * or with octets after it, a UDP packet, garbage or an oversized packet in its place, a packet
 * duplicated, dropped or swapped with the next, checksums made right again after most. Each packet is
 * added from a buffer of its own exact length (so the sanitizers catch any read beyond it) with an
 * item naming it, to one of three TUNs the joiner switches between: two sockets (SOCK_SEQPACKET, one
 * message per write) and a descriptor every write to which fails; a batch may end (a flush) anywhere.
 *
 * Checked at every write (`written`): 1 to 64 packets; the items are the next packets of the
 * sequence, in order, each told of exactly once, all for the TUN written to; a write to a socket
 * succeeded and one to the failing descriptor did not; a joined write is at most 64 KiB of IP packet
 * behind its header, and tun-gso.c's parser cuts it back into the very packets that went in, octet
 * for octet; a packet written alone is it behind a zero header. At each sequence's end every packet was
 * told of. Exits 1 printing the violation and where; else prints the tally as JSON. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../native/upf/inet-checksum.h"
#include "../../../native/upf/tun-gro.h"
#include "../../../native/upf/tun-gso.h"

#define MAX_PACKETS 128
#define MAX_PACKET (65535 + 80)
#define TARGETS 3

typedef struct {
  uint32_t index; /* in its sequence */
  uint32_t target;
} item;

typedef struct {
  uint8_t *bytes; /* exactly `length` octets, malloc'd */
  size_t length;
  uint32_t target;
} packet;

static uint64_t state;

static uint64_t next(void) {
  /* xorshift64* */
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545f4914f6cdd1dull;
}

static uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
static bool chance(unsigned percent) { return below(100) < percent; }

static packet packets[MAX_PACKETS];
static unsigned packet_count;
static uint64_t sequence;
static tun_gro g;
static int fds[TARGETS];  /* what the joiner writes to */
static int reads[TARGETS]; /* the sockets' other ends; -1 for the failing descriptor */
static uint32_t told;       /* packets of the sequence told of so far */
static uint8_t frame[TUN_VNET_HDR + 2 * MAX_PACKET];
static uint8_t piece[MAX_PACKET];

static struct {
  uint64_t packets, writes, joined_writes, joined_packets, failed_writes, full_writes, big_writes,
      ipv6_joined, alone, flushes, switches, mutations;
} tally;

#define FAIL(...)                                                                          \
  do {                                                                                     \
    printf("{\"violation\":\"");                                                           \
    printf(__VA_ARGS__);                                                                   \
    printf("\",\"sequence\":%llu,\"told\":%u,\"packets\":%u}\n", (unsigned long long)sequence, \
           told, packet_count);                                                            \
    exit(1);                                                                               \
  } while (0)

static void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v) {
  put16(p, (uint16_t)(v >> 16));
  put16(p + 2, (uint16_t)v);
}

static void fill(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t r = next();
    memcpy(p + i, &r, n - i < 8 ? n - i : 8);
  }
}

/* Makes the IPv4 header checksum and the TCP checksum right again, where the packet still has the
 * layout they are over. */
static void fix_checksums(uint8_t *p, size_t n) {
  if (n < 40) return;
  bool ipv6 = p[0] >> 4 == 6;
  size_t tcp = ipv6 ? 40 : 4 * (size_t)(p[0] & 0x0f);
  if (!ipv6) {
    if (tcp < 20 || tcp > n) return;
    p[10] = p[11] = 0;
    uint16_t c = (uint16_t)~inet_fold(inet_sum(p, tcp, 0));
    memcpy(p + 10, &c, 2);
  }
  if (tcp + 20 > n) return;
  p[tcp + 16] = p[tcp + 17] = 0;
  uint16_t c = (uint16_t)~inet_fold(inet_sum(p + tcp, n - tcp, inet_tcp_pseudo(p, n - tcp, ipv6)));
  memcpy(p + tcp + 16, &c, 2);
}

/* One TCP packet of the run: its headers from `base` (IP + TCP + options), then the payload. */
static packet make(const uint8_t *base, size_t header, bool ipv6, uint32_t seq, uint16_t id,
                   uint8_t flags, size_t payload) {
  packet out = {.length = header + payload};
  out.bytes = malloc(out.length);
  if (out.bytes == NULL) exit(2);
  memcpy(out.bytes, base, header);
  fill(out.bytes + header, payload);
  size_t tcp = ipv6 ? 40 : 20;
  if (ipv6) {
    put16(out.bytes + 4, (uint16_t)(out.length - 40));
  } else {
    put16(out.bytes + 2, (uint16_t)out.length);
    put16(out.bytes + 4, id);
  }
  put32(out.bytes + tcp + 4, seq);
  out.bytes[tcp + 13] = flags;
  fix_checksums(out.bytes, out.length);
  return out;
}

static packet other(size_t length) {
  packet out = {.length = length};
  out.bytes = malloc(length > 0 ? length : 1);
  if (out.bytes == NULL) exit(2);
  fill(out.bytes, length);
  return out;
}

/* A packet's length changed: a new buffer of exactly `length` octets, the old ones kept (then
 * random ones after them). */
static void resize(packet *p, size_t length) {
  uint8_t *bytes = malloc(length > 0 ? length : 1);
  if (bytes == NULL) exit(2);
  size_t kept = length < p->length ? length : p->length;
  memcpy(bytes, p->bytes, kept);
  fill(bytes + kept, length - kept);
  free(p->bytes);
  p->bytes = bytes;
  p->length = length;
}

static void mutate(packet *p, bool ipv6) {
  tally.mutations++;
  uint8_t *b = p->bytes;
  size_t n = p->length;
  size_t tcp = ipv6 ? 40 : 20;
  bool fix = chance(75);
  switch (below(14)) {
    case 0: /* an octet anywhere */
      if (n > 0) b[below((uint32_t)n)] ^= (uint8_t)(1 + below(255));
      break;
    case 1: /* other flags */
      if (n > tcp + 13) b[tcp + 13] = chance(50) ? (uint8_t)next() : (uint8_t)(0x10 | (next() & 0x09));
      break;
    case 2: /* an urgent pointer */
      if (n > tcp + 19) put16(b + tcp + 18, (uint16_t)(1 + below(1000)));
      break;
    case 3: /* IPv4 options (a longer header) or a fragment */
      if (!ipv6 && n >= 24) {
        if (chance(50))
          b[0] = (uint8_t)(0x40 | (5 + below(11)));
        else
          put16(b + 6, (uint16_t)(chance(50) ? 0x2000 : 1 + below(0x1fff)));
      }
      break;
    case 4: /* another ACK number or window */
      if (n > tcp + 15) b[tcp + (chance(50) ? 8 + below(4) : 14 + below(2))] ^= (uint8_t)(1 + below(255));
      break;
    case 5: /* another identification, or a sequence gap */
      if (!ipv6 && chance(50) && n > 5)
        put16(b + 4, (uint16_t)next());
      else if (n > tcp + 7)
        put32(b + tcp + 4, (uint32_t)next());
      break;
    case 6: /* a shorter or longer payload, its length fields along */
      if (n >= tcp + 20) {
        resize(p, chance(50) ? n - below((uint32_t)(n - tcp - 19)) : n + 1 + below(2000));
        b = p->bytes;
        n = p->length;
        if (n <= 65535) {
          if (ipv6) put16(b + 4, (uint16_t)(n - 40));
          else put16(b + 2, (uint16_t)n);
        }
      }
      break;
    case 7: /* a wrong checksum */
      if (n > tcp + 17) b[chance(50) || ipv6 ? tcp + 16 + below(2) : 10 + below(2)] ^= (uint8_t)(1 + below(255));
      fix = false;
      break;
    case 8: /* truncated */
      resize(p, below((uint32_t)n + 1));
      fix = false;
      break;
    case 9: /* octets after it */
      resize(p, n + 1 + below(64));
      fix = false;
      break;
    case 10: /* a UDP packet of the same addresses */
      if (n > 9 && !ipv6) b[9] = 17;
      else if (n > 6 && ipv6) b[6] = 17;
      break;
    case 11: /* garbage, or larger than any TUN write */
      free(p->bytes);
      *p = other(chance(80) ? below(100) : 65536 + below(64));
      p->target = below(TARGETS);
      return;
    case 12: /* another version or protocol */
      if (n > 0) b[0] = (uint8_t)((below(16) << 4) | (b[0] & 0x0f));
      break;
    case 13: /* the data offset */
      if (n > tcp + 12) b[tcp + 12] = (uint8_t)(below(16) << 4);
      break;
  }
  if (fix) fix_checksums(p->bytes, p->length);
}

static void written(void *context, const void *items, unsigned count, bool ok) {
  (void)context;
  tally.writes++;
  if (count < 1 || count > TUN_GRO_MAX_PACKETS) FAIL("a write of %u packets", count);
  const item *it = items;
  int target = -1;
  for (int t = 0; t < TARGETS; t++)
    if (fds[t] == g.fd) target = t;
  if (target < 0) FAIL("a write to descriptor %d, no target's", g.fd);
  for (unsigned k = 0; k < count; k++) {
    if (it[k].index != told + k)
      FAIL("packet %u told of where %u was next (once each, in order)", it[k].index, told + k);
    if (it[k].target != (uint32_t)target)
      FAIL("packet %u for target %u written to target %d", it[k].index, it[k].target, target);
  }
  if (ok != (reads[target] >= 0)) FAIL("a write to target %d %s", target, ok ? "succeeded" : "failed");
  if (!ok) {
    tally.failed_writes++;
    told += count;
    return;
  }
  ssize_t n = recv(reads[target], frame, sizeof frame, MSG_DONTWAIT | MSG_TRUNC);
  if (n < (ssize_t)TUN_VNET_HDR || (size_t)n > sizeof frame) FAIL("a write of %zd octets read back", n);
  const packet *first = &packets[it[0].index];
  if (count == 1) {
    static const uint8_t zero[TUN_VNET_HDR];
    tally.alone++;
    if (memcmp(frame, zero, TUN_VNET_HDR) != 0) FAIL("a packet written alone behind a GSO header");
    if ((size_t)n != TUN_VNET_HDR + first->length ||
        memcmp(frame + TUN_VNET_HDR, first->bytes, first->length) != 0)
      FAIL("packet %u written alone changed", it[0].index);
    told += 1;
    return;
  }
  tally.joined_writes++;
  tally.joined_packets += count;
  if (count == TUN_GRO_MAX_PACKETS) tally.full_writes++;
  if ((size_t)n - TUN_VNET_HDR > 65535) FAIL("a segment of %zd octets", n - (ssize_t)TUN_VNET_HDR);
  if ((size_t)n - TUN_VNET_HDR > 60000) tally.big_writes++;
  tun_gso cut;
  if (!tun_gso_parse(frame, (size_t)n, &cut) || !cut.gso || cut.pieces != count)
    FAIL("a joined write of %u packets does not parse back into as many", count);
  if (cut.ipv6) tally.ipv6_joined++;
  if (tun_gso_piece_max(&cut) > sizeof piece) FAIL("a piece larger than any packet");
  for (unsigned k = 0; k < count; k++) {
    const packet *p = &packets[it[k].index];
    size_t length = tun_gso_piece(&cut, k, piece);
    if (length != p->length || memcmp(piece, p->bytes, length) != 0)
      FAIL("piece %u of a joined write is not packet %u", k, it[k].index);
  }
  told += count;
}

/* One run of a connection's packets, as a sender's TSO cuts a segment, then mutated. */
static void generate(void) {
  bool ipv6 = chance(30);
  size_t tcp = ipv6 ? 40 : 20;
  size_t options = chance(40) ? 12 : 4 * below(chance(90) ? 1 : 11);
  size_t header = tcp + 20 + options;
  uint8_t base[120];
  memset(base, 0, sizeof base);
  if (ipv6) {
    base[0] = 0x60;
    base[6] = 6;
    base[7] = 64;
    fill(base + 8, 32);
  } else {
    base[0] = 0x45;
    base[1] = chance(90) ? 0 : (uint8_t)next();
    put16(base + 6, chance(80) ? 0x4000 : 0);
    base[8] = 64;
    base[9] = 6;
    fill(base + 12, 8);
  }
  fill(base + tcp, 4);            /* ports */
  fill(base + tcp + 8, 4);        /* ACK number */
  base[tcp + 12] = (uint8_t)((20 + options) / 4 << 4);
  put16(base + tcp + 14, (uint16_t)next());
  fill(base + tcp + 20, options);
  /* Mostly small packets, some runs large enough for 64 KiB, some long enough for 64 packets. */
  unsigned r = below(100);
  size_t mss = r < 75 ? 1 + below(200) : r < 98 ? 1 + below(1460) : 1448;
  unsigned count = r >= 98 ? 40 + below(20) : chance(10) ? 1 + below(100) : 1 + below(12);
  if (header + mss > 65535) mss = 65535 - header;
  uint32_t seq = (uint32_t)next();
  uint16_t id = (uint16_t)next();
  uint8_t end = chance(30) ? (chance(50) ? 0x18 : 0x11) : 0x10;
  size_t last = chance(50) ? mss : 1 + below((uint32_t)mss);
  uint32_t target = below(TARGETS);
  packet_count = 0;
  for (unsigned i = 0; i < count; i++) {
    size_t payload = i + 1 == count ? last : mss;
    packets[packet_count] = make(base, header, ipv6, seq, id, i + 1 == count ? end : 0x10, payload);
    if (chance(1)) target = below(TARGETS);
    packets[packet_count++].target = target;
    seq += (uint32_t)payload;
    id++;
  }
  unsigned rate = below(4) == 0 ? 0 : 1 + below(20);
  for (unsigned i = 0; i < packet_count; i++)
    if (chance(rate)) mutate(&packets[i], ipv6);
  /* Duplicated, dropped, swapped. */
  if (chance(10) && packet_count > 1) {
    unsigned at = below(packet_count - 1);
    switch (below(3)) {
      case 0:
        if (packet_count < MAX_PACKETS) {
          packet copy = packets[at];
          copy.bytes = malloc(copy.length > 0 ? copy.length : 1);
          if (copy.bytes == NULL) exit(2);
          memcpy(copy.bytes, packets[at].bytes, copy.length);
          memmove(&packets[at + 1], &packets[at], (packet_count - at) * sizeof(packet));
          packets[at] = copy;
          packet_count++;
        }
        break;
      case 1:
        free(packets[at].bytes);
        memmove(&packets[at], &packets[at + 1], (packet_count - at - 1) * sizeof(packet));
        packet_count--;
        break;
      case 2: {
        packet t = packets[at];
        packets[at] = packets[at + 1];
        packets[at + 1] = t;
        break;
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  uint64_t sequences = strtoull(argv[1], NULL, 10);
  state = strtoull(argv[2], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
  for (int t = 0; t < 2; t++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0) return 2;
    int size = 4 << 20;
    setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    fds[t] = pair[0];
    reads[t] = pair[1];
  }
  fds[2] = -1; /* EBADF: the kernel refusing the write */
  reads[2] = -1;
  if (!tun_gro_init(&g, fds[0], sizeof(item), written, NULL)) return 2;
  for (sequence = 0; sequence < sequences; sequence++) {
    generate();
    told = 0;
    for (unsigned i = 0; i < packet_count; i++) {
      if (fds[packets[i].target] != g.fd) tally.switches++;
      tun_gro_target(&g, fds[packets[i].target]);
      item it = {.index = i, .target = packets[i].target};
      tun_gro_add(&g, packets[i].bytes, packets[i].length, &it);
      /* A receive batch may end after any packet. */
      if (chance(2)) {
        tun_gro_flush(&g);
        tally.flushes++;
      }
    }
    tun_gro_flush(&g);
    if (told != packet_count) FAIL("%u of %u packets told of at the sequence's end", told, packet_count);
    tally.packets += packet_count;
    for (unsigned i = 0; i < packet_count; i++) free(packets[i].bytes);
  }
  tun_gro_free(&g);
  printf(
      "{\"sequences\":%llu,\"packets\":%llu,\"writes\":%llu,\"joinedWrites\":%llu,\"joinedPackets\":%llu,"
      "\"failedWrites\":%llu,\"fullWrites\":%llu,\"bigWrites\":%llu,\"ipv6Joined\":%llu,\"alone\":%llu,"
      "\"flushes\":%llu,\"switches\":%llu,\"mutations\":%llu}\n",
      (unsigned long long)sequences, (unsigned long long)tally.packets,
      (unsigned long long)tally.writes, (unsigned long long)tally.joined_writes,
      (unsigned long long)tally.joined_packets, (unsigned long long)tally.failed_writes,
      (unsigned long long)tally.full_writes, (unsigned long long)tally.big_writes,
      (unsigned long long)tally.ipv6_joined, (unsigned long long)tally.alone,
      (unsigned long long)tally.flushes, (unsigned long long)tally.switches,
      (unsigned long long)tally.mutations);
  return 0;
}
