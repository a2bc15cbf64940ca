/* Drives the UPF's XDP program (build/Release/upf.bpf.o) with mutated packets through
 * BPF_PROG_TEST_RUN, in the kernel, without interfaces (test/system/upf-xdp-fuzz.test.ts):
 *   upf-xdp-fuzz <object> <packets> <seed> [budget]
 * budget: packets the program may hand to the stack (about one more per second), a million when absent.
 * One session (TEID 0x1234, UE 10.45.0.2 and 2001:db8:45:1::/64, tunnel active) and N3 10.0.0.1:2152.
 * The seeds are an uplink G-PDU with a PDU Session Container, a downlink packet to the UE, an Echo
 * Request, a spoofed G-PDU, and an IPv6 G-PDU from inside the /64 and one from outside it, each first
 * run once as it is (their verdicts printed); each further run mutates one (octets flipped or set, lengths lied about, extension headers chained,
 * truncated or lengthened). Checks on every packet: the verdict is PASS, DROP or REDIRECT; a packet
 * handed to the stack (PASS) leaves unchanged. At the end: every DROP is counted once as spoofed,
 * AMBR or over the hand-over budget. Prints one JSON line with the tallies; exits 1 on a violation.
 * Test runs have the loopback device as ingress, where the kernel does not forward: the FIB lookups
 * fail and what would be forwarded is handed to the stack (still checked unchanged). */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../native/upf/bpf/upf-xdp.h"

#define SEEDS 6

static uint32_t state;
static uint32_t next(void) { /* xorshift32: the same packets for the same seed */
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }

static uint16_t checksum(const uint8_t *p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < n; i += 2) sum += (uint32_t)(p[i] << 8 | p[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

/* Ethernet + IPv4 (+ UDP when ports) with a payload of n octets; returns the length. */
static size_t ipv4(uint8_t *p, const uint8_t *source, const uint8_t *destination, uint8_t protocol,
                   size_t payload) {
  memset(p, 0, 34);
  p[12] = 0x08; /* IPv4 */
  uint8_t *ip = p + 14;
  ip[0] = 0x45;
  put16(ip + 2, (unsigned)(20 + payload));
  ip[8] = 64;
  ip[9] = protocol;
  memcpy(ip + 12, source, 4);
  memcpy(ip + 16, destination, 4);
  put16(ip + 10, checksum(ip, 20));
  return 34 + payload;
}

static const uint8_t N3[4] = {10, 0, 0, 1}, GNB[4] = {10, 0, 0, 2}, UE[4] = {10, 45, 0, 2},
                     DN[4] = {192, 0, 2, 9}, OTHER[4] = {10, 45, 0, 3};
/* The session's /64 and an address in it, and one outside it. */
static const uint8_t PREFIX[8] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x45, 0, 1},
                     UE6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x45, 0, 1, [15] = 7},
                     OTHER6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x45, 0, 2, [15] = 7};

/* A G-PDU (or another type) from the gNB carrying an inner UDP packet from `from`. */
static size_t gtpu(uint8_t *p, uint8_t type, const uint8_t *from, size_t data) {
  uint8_t *udp = p + 34, *g = udp + 8, *inner = g + 16;
  size_t inner_length = 28 + data;
  ipv4(inner - 14, from, DN, 17, 8 + data); /* writes an Ethernet header into g's space first */
  memset(g, 0, 16);
  g[0] = 0x34; /* version 1, PT 1, E */
  g[1] = type;
  put16(g + 2, (unsigned)(8 + inner_length));
  g[4] = 0, g[5] = 0, g[6] = 0x12, g[7] = 0x34;
  g[11] = 0x85; /* PDU Session Container, UL PDU SESSION INFORMATION, QFI 1 */
  g[12] = 1, g[13] = 0x10, g[14] = 1, g[15] = 0;
  memset(inner + 20, 0, 8);
  put16(inner + 20, 40000), put16(inner + 22, 7000), put16(inner + 24, (unsigned)(8 + data));
  for (size_t i = 0; i < data; i++) inner[28 + i] = (uint8_t)i;
  memset(udp, 0, 8);
  put16(udp, 2152), put16(udp + 2, 2152), put16(udp + 4, (unsigned)(8 + 16 + inner_length));
  return ipv4(p, GNB, N3, 17, 8 + 16 + inner_length);
}

/* The same G-PDU with an inner IPv6 UDP packet from `from` (16 octets) to 2001:db8:99::9. */
static size_t gtpu6(uint8_t *p, const uint8_t *from, size_t data) {
  size_t length = gtpu(p, 255, UE, data); /* the outer headers; the inner one is rewritten below */
  uint8_t *inner = p + 34 + 8 + 16;
  size_t inner_length = 40 + 8 + data;
  memset(inner, 0, 48);
  inner[0] = 0x60;
  put16(inner + 4, (unsigned)(8 + data));
  inner[6] = 17;
  inner[7] = 64;
  memcpy(inner + 8, from, 16);
  static const uint8_t dn6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99, [15] = 9};
  memcpy(inner + 24, dn6, 16);
  put16(inner + 40, 40000), put16(inner + 42, 7000), put16(inner + 44, (unsigned)(8 + data));
  for (size_t i = 0; i < data; i++) inner[48 + i] = (uint8_t)i;
  put16(p + 34 + 8 + 2, (unsigned)(8 + inner_length));
  put16(p + 34 + 4, (unsigned)(8 + 16 + inner_length));
  put16(p + 14 + 2, (unsigned)(20 + 8 + 16 + inner_length));
  p[14 + 10] = p[14 + 11] = 0;
  put16(p + 14 + 10, checksum(p + 14, 20));
  (void)length;
  return 14 + 20 + 8 + 16 + inner_length;
}

static int fd_of(struct bpf_object *o, const char *name) {
  return bpf_map__fd(bpf_object__find_map_by_name(o, name));
}

static uint64_t counter(int fd, uint32_t key, int cpus) {
  uint64_t values[1024], sum = 0;
  if (cpus > 1024 || bpf_map_lookup_elem(fd, &key, values) != 0) return 0;
  for (int i = 0; i < cpus; i++) sum += values[i];
  return sum;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  long packets = atol(argv[2]);
  state = (uint32_t)atol(argv[3]) | 1;
  struct bpf_object *o = bpf_object__open_file(argv[1], NULL);
  if (o == NULL) return perror("open"), 2;
  const char *sized[] = {"xdp_rules", "xdp_policers", "xdp_usage", "xdp_by_teid", "xdp_by_ipv4",
                         "xdp_by_ipv6", "xdp_flows"};
  for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++)
    bpf_map__set_max_entries(bpf_object__find_map_by_name(o, sized[i]), 64);
  if (bpf_object__load(o) != 0) return perror("load"), 2;
  int program = bpf_program__fd(bpf_object__find_program_by_name(o, "upf_xdp"));
  int cpus = libbpf_num_possible_cpus();
  uint32_t zero = 0, slot = 0, teid = htonl(0x1234);
  struct xdp_config config = {.family = 4, .n3_port = htons(2152), .to_stack_per_second = 1000000};
  memcpy(config.n3, N3, 4);
  struct xdp_budget budget = {0};
  /* The burst is the budget; the refill about one packet per second (the rate's smallest step). */
  unsigned long long allowed = argc > 4 ? (unsigned long long)atoll(argv[4]) : 1000000;
  budget.bucket.rate = 1;
  budget.bucket.burst = budget.bucket.tokens = allowed << XDP_FP;
  budget.bucket.fill_ns = budget.bucket.burst + 1;
  struct xdp_rule rule = {.id = 7, .active = 1, .qfi = 5, .has_ipv4 = 1, .has_ipv6 = 1,
                          .gnb_port = htons(2152)};
  memcpy(rule.ipv4, UE, 4);
  memcpy(rule.ipv6_prefix, PREFIX, 8);
  memcpy(rule.gnb, GNB, 4);
  rule.remote_teid = htonl(0x5678);
  struct xdp_policer policer = {0};
  if (bpf_map_update_elem(fd_of(o, "xdp_config"), &zero, &config, 0) ||
      bpf_map_update_elem(fd_of(o, "xdp_budget"), &zero, &budget, 0) ||
      bpf_map_update_elem(fd_of(o, "xdp_rules"), &slot, &rule, 0) ||
      bpf_map_update_elem(fd_of(o, "xdp_policers"), &slot, &policer, BPF_F_LOCK) ||
      bpf_map_update_elem(fd_of(o, "xdp_by_teid"), &teid, &slot, 0) ||
      bpf_map_update_elem(fd_of(o, "xdp_by_ipv4"), UE, &slot, 0) ||
      bpf_map_update_elem(fd_of(o, "xdp_by_ipv6"), PREFIX, &slot, 0))
    return perror("maps"), 2;

  static uint8_t seed[SEEDS][2048], in[4096], out[4096 + 256];
  size_t seed_length[SEEDS];
  seed_length[0] = gtpu(seed[0], 255, UE, 64);
  seed_length[1] = ipv4(seed[1], DN, UE, 17, 8 + 64); /* downlink */
  seed_length[2] = gtpu(seed[2], 1, UE, 0);           /* type 1: Echo Request */
  seed_length[3] = gtpu(seed[3], 255, OTHER, 32);     /* spoofed */
  seed_length[4] = gtpu6(seed[4], UE6, 32);
  seed_length[5] = gtpu6(seed[5], OTHER6, 32); /* spoofed, outside the /64 */
  long verdicts[5] = {0}, changed = 0, unexpected = 0;
  /* Each seed once as it is: its verdict (printed; the test knows what each must be). */
  uint32_t seed_verdicts[SEEDS];
  for (int i = 0; i < SEEDS; i++) {
    LIBBPF_OPTS(bpf_test_run_opts, once, .data_in = seed[i], .data_size_in = (uint32_t)seed_length[i],
                .data_out = out, .data_size_out = sizeof out, .repeat = 1);
    if (bpf_prog_test_run_opts(program, &once) != 0) return perror("test run"), 2;
    seed_verdicts[i] = once.retval;
    if (once.retval <= XDP_REDIRECT) verdicts[once.retval]++;
  }  for (long n = 0; n < packets; n++) {
    int which = (int)(next() % SEEDS);
    size_t length = seed_length[which];
    memcpy(in, seed[which], length);
    int mutations = (int)(next() % 4);
    for (int m = 0; m < mutations; m++) {
      uint32_t r = next();
      size_t at = 14 + r % (length > 14 ? length - 14 : 1);
      switch ((r >> 24) % 6) {
      case 0: in[at] ^= (uint8_t)(1u << (r >> 16) % 8); break;   /* a bit */
      case 1: in[at] = (uint8_t)(r >> 8); break;                  /* an octet */
      case 2: length = 14 + r % (length - 13); break;             /* truncated */
      case 3:                                                     /* lengthened */
        for (size_t e = 0, extra = r % 600; e < extra && length < sizeof in; e++) in[length++] = (uint8_t)next();
        break;
      case 4: put16(in + 34 + 8 + 2, (r >> 8) & 0xffff); break; /* GTP-U length lies */
      default: /* an extension header chain: lengths and next types at random */
        in[34 + 8] |= 0x04;
        in[34 + 8 + 11] = (uint8_t)(r >> 8) | 0x80;
        for (size_t e = 34 + 8 + 12; e + 4 <= length && e < 34 + 8 + 80; e += 4) {
          in[e] = (uint8_t)(next() % 3);
          in[e + 3] = (uint8_t)next();
        }
      }
    }
    LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = in, .data_size_in = (uint32_t)length,
                .data_out = out, .data_size_out = sizeof out, .repeat = 1);
    if (bpf_prog_test_run_opts(program, &run) != 0) return perror("test run"), 2;
    uint32_t verdict = run.retval;
    if (verdict != XDP_PASS && verdict != XDP_DROP && verdict != XDP_REDIRECT) {
      unexpected++;
      continue;
    }
    verdicts[verdict]++;
    if (verdict == XDP_PASS && (run.data_size_out != length || memcmp(in, out, length) != 0)) changed++;
  }
  int counters = fd_of(o, "xdp_counters");
  uint64_t spoofed = counter(counters, XDP_C_DROP_SPOOFED, cpus),
           ambr = counter(counters, XDP_C_DROP_UPLINK_AMBR, cpus) +
                  counter(counters, XDP_C_DROP_DOWNLINK_AMBR, cpus),
           limited = counter(counters, XDP_C_TO_STACK_LIMITED, cpus),
           to_stack = counter(counters, XDP_C_TO_STACK, cpus);
  printf("{\"seedVerdicts\":[%u,%u,%u,%u,%u,%u],", seed_verdicts[0], seed_verdicts[1],
         seed_verdicts[2], seed_verdicts[3], seed_verdicts[4], seed_verdicts[5]);
  printf("\"packets\":%ld,\"pass\":%ld,\"drop\":%ld,\"redirect\":%ld,\"unexpected\":%ld,"
         "\"changedOnPass\":%ld,\"dropSpoofed\":%llu,\"dropAmbr\":%llu,\"toStackLimited\":%llu,"
         "\"toStack\":%llu}\n",
         packets, verdicts[XDP_PASS], verdicts[XDP_DROP], verdicts[XDP_REDIRECT], unexpected, changed,
         (unsigned long long)spoofed, (unsigned long long)ambr, (unsigned long long)limited,
         (unsigned long long)to_stack);
  bpf_object__close(o);
  bool ok = unexpected == 0 && changed == 0 &&
            (uint64_t)verdicts[XDP_DROP] == spoofed + ambr + limited && to_stack <= (uint64_t)verdicts[XDP_PASS];
  return ok ? 0 : 1;
}
