/* The XDP benches' generator and sink (bench/upf-xdp.ts; the sink program is bench/xdp-sink.bpf.c).
 *
 *   gen <interface> <cpu> <seconds> <hex frame> <sessions> <flows> <teid at> <teid base>
 *       <address at> <address base> <ip at> <port at> <burst min> <burst max>
 *     Pinned to <cpu>, sends Ethernet frames out of <interface> for <seconds> through a packet
 *     socket that bypasses the qdisc (PACKET_QDISC_BYPASS), 1,024 per sendmmsg: no UDP, IP or
 *     routing on the way out, so a frame costs the sender an skb and the veth's transmit. The frames
 *     are spread over <sessions> x <flows>: a frame of session s carries TEID base + s at <teid at>,
 *     IPv4 address base + s at <address at> (the IPv4 header at <ip at> given its new checksum), and
 *     of flow f UDP source port 10000 + f at <port at>; an offset 0 leaves that field alone. With
 *     <burst max> 0 (interleaved, the adversarial order) frame i of the run is of session
 *     i % sessions and flow (i / sessions) % flows, so consecutive frames are of different flows.
 *     Otherwise (bursts) the frames come in bursts of <burst min> to <burst max> frames of one flow
 *     (as a TCP window or a GSO segment's packets arrive), each burst of a flow drawn at random
 *     among all sessions x flows. Prints "<frames sent> <cpu us> <wall us>".
 *   sink <object> <interface>
 *     Attaches the sink program (native mode) and, on SIGTERM, detaches it and prints "<frames>".
 *   cost <interface> <runs> <hex frame> <sessions> <flows> <teid at> <teid base> <address at>
 *        <address base> <ip at> <port at> <burst min> <burst max>
 *     Runs the XDP program attached to <interface> on <runs> frames spread as gen's, one per
 *     BPF_PROG_TEST_RUN (that interface as ingress; a redirect is decided, not carried out), and
 *     prints "<ns per run> <redirects>": the program's own time per packet, without the driver's.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

/* Frames per sendmmsg (each its own buffer, rewritten before every call), and the largest. */
#define BATCH 1024
#define MAX_FRAME 2048

static volatile sig_atomic_t stop;
static void on_term(int s) {
  (void)s;
  stop = 1;
}

static uint64_t now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

static uint64_t self_us(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (uint64_t)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000u +
         (uint64_t)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

static struct bpf_object *open_object(const char *path) {
  struct bpf_object *object = bpf_object__open_file(path, NULL);
  if (object == NULL || bpf_object__load(object) != 0) {
    fprintf(stderr, "xdp-gen: cannot load %s: %s\n", path, strerror(errno));
    exit(1);
  }
  return object;
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* RFC 791 3.1: the header checksum over the 20-octet header (no options here). */
static void ipv4_checksum(uint8_t *h) {
  h[10] = h[11] = 0;
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += ((uint32_t)h[i] << 8) | h[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  h[10] = (uint8_t)(~sum >> 8);
  h[11] = (uint8_t)~sum;
}

static uint8_t frames[BATCH][MAX_FRAME];

/* The frame and how it is spread over sessions and flows: <hex frame> <sessions> <flows> <teid at>
 * <teid base> <address at> <address base> <ip at> <port at> <burst min> <burst max>, from args[0]. */
typedef struct {
  size_t length;
  uint32_t sessions, flows, teid_at, teid_base, address_at, address_base, ip_at, port_at;
  uint32_t burst_min, burst_max;
} spread;
#define SPREAD_ARGS 11

static bool parse_spread(char **args, spread *sp) {
  const char *hex = args[0];
  sp->length = strlen(hex) / 2;
  uint32_t v[SPREAD_ARGS - 1];
  for (int i = 0; i < SPREAD_ARGS - 1; i++) v[i] = (uint32_t)strtoul(args[1 + i], NULL, 0);
  sp->sessions = v[0], sp->flows = v[1], sp->teid_at = v[2], sp->teid_base = v[3];
  sp->address_at = v[4], sp->address_base = v[5], sp->ip_at = v[6], sp->port_at = v[7];
  sp->burst_min = v[8], sp->burst_max = v[9];
  if (sp->burst_max != 0 && (sp->burst_min == 0 || sp->burst_min > sp->burst_max)) {
    fprintf(stderr, "xdp-gen: bursts of %u to %u frames\n", sp->burst_min, sp->burst_max);
    return false;
  }
  if (sp->length < 14 || sp->length > MAX_FRAME || sp->sessions == 0 || sp->flows == 0 ||
      sp->teid_at + 4 > sp->length || sp->address_at + 4 > sp->length ||
      (sp->address_at != 0 && sp->ip_at + 20 > sp->length) || sp->port_at + 2 > sp->length) {
    fprintf(stderr, "xdp-gen: a frame of %zu octets, or fields outside it\n", sp->length);
    return false;
  }
  for (int i = 0; i < BATCH; i++)
    for (size_t j = 0; j < sp->length; j++) sscanf(hex + 2 * j, "%2hhx", &frames[i][j]);
  return true;
}

/* Which session and flow a frame is of. */
typedef struct {
  uint32_t session, flow;
} pick;

/* The run's order of frames: a counter (interleaved) or the current burst (bursts). */
typedef struct {
  uint64_t counter;
  uint64_t random; /* splitmix64 state: a fixed seed, so runs repeat the same order */
  uint32_t left;   /* frames left in the current burst */
  pick burst;
} order;

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The next frame's session and flow. */
static pick next_pick(order *o, const spread *sp) {
  if (sp->burst_max == 0) {
    uint64_t i = o->counter++;
    return (pick){(uint32_t)(i % sp->sessions), (uint32_t)((i / sp->sessions) % sp->flows)};
  }
  if (o->left == 0) {
    uint64_t all = (uint64_t)sp->sessions * sp->flows;
    uint64_t k = splitmix64(&o->random) % all;
    o->burst = (pick){(uint32_t)(k % sp->sessions), (uint32_t)(k / sp->sessions)};
    o->left = sp->burst_min + (uint32_t)(splitmix64(&o->random) % (sp->burst_max - sp->burst_min + 1));
  }
  o->left--;
  return o->burst;
}

/* Writes a frame's session and flow into it. */
static void spread_frame(uint8_t *frame, pick p, const spread *sp) {
  uint32_t session = p.session, flow = p.flow;
  if (sp->teid_at != 0) put32(frame + sp->teid_at, sp->teid_base + session);
  if (sp->address_at != 0) {
    put32(frame + sp->address_at, sp->address_base + session);
    ipv4_checksum(frame + sp->ip_at);
  }
  if (sp->port_at != 0) {
    frame[sp->port_at] = (uint8_t)((10000 + flow) >> 8);
    frame[sp->port_at + 1] = (uint8_t)(10000 + flow);
  }
}

static int generate(char **argv) {
  int cpu = atoi(argv[3]);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    perror("xdp-gen: sched_setaffinity");
    return 1;
  }
  double seconds = atof(argv[4]);
  spread sp;
  if (!parse_spread(argv + 5, &sp)) return 1;
  struct sockaddr_ll to = {.sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex(argv[2]),
                           .sll_halen = 6};
  memcpy(to.sll_addr, frames[0], 6);
  int fd = socket(AF_PACKET, SOCK_RAW, 0);
  int one = 1;
  if (to.sll_ifindex == 0 || fd < 0 ||
      setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one) != 0) {
    fprintf(stderr, "xdp-gen: packet socket on %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  static struct mmsghdr messages[BATCH];
  static struct iovec iov[BATCH];
  for (int i = 0; i < BATCH; i++) {
    iov[i].iov_base = frames[i];
    iov[i].iov_len = sp.length;
    messages[i].msg_hdr.msg_name = &to;
    messages[i].msg_hdr.msg_namelen = sizeof to;
    messages[i].msg_hdr.msg_iov = &iov[i];
    messages[i].msg_hdr.msg_iovlen = 1;
  }
  uint64_t sent = 0, started = now_us(), cpu_before = self_us();
  uint64_t deadline = started + (uint64_t)(seconds * 1e6);
  order o = {.random = 31};
  static pick picks[BATCH];
  int held = 0; /* picks at the front of picks[] not sent yet */
  while (!stop && now_us() < deadline) {
    for (int i = held; i < BATCH; i++) picks[i] = next_pick(&o, &sp);
    for (int i = 0; i < BATCH; i++) spread_frame(frames[i], picks[i], &sp);
    int n = sendmmsg(fd, messages, BATCH, 0);
    if (n < 0) n = 0;
    sent += (uint64_t)n;
    /* The frames after the first the veth refused (its peer's ring full) were not sent: the next call
     * starts with them, so that every session and flow of the spread gets its packets in turn and a
     * burst stays whole. */
    held = BATCH - n;
    memmove(picks, picks + n, (size_t)held * sizeof picks[0]);
  }
  uint64_t wall = now_us() - started;
  printf("%llu %llu %llu\n", (unsigned long long)sent, (unsigned long long)(self_us() - cpu_before),
         (unsigned long long)wall);
  close(fd);
  return 0;
}

static int sink(char **argv) {
  unsigned ifindex = if_nametoindex(argv[3]);
  if (ifindex == 0) {
    fprintf(stderr, "xdp-gen: no interface %s\n", argv[3]);
    return 1;
  }
  struct bpf_object *object = open_object(argv[2]);
  int program = bpf_program__fd(bpf_object__find_program_by_name(object, "sink"));
  LIBBPF_OPTS(bpf_link_create_opts, options, .flags = XDP_FLAGS_DRV_MODE);
  int link = bpf_link_create(program, (int)ifindex, BPF_XDP, &options);
  if (link < 0) {
    fprintf(stderr, "xdp-gen: cannot attach the sink to %s: %s\n", argv[3], strerror(-link));
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  while (!stop) pause();
  close(link);
  int cpus = libbpf_num_possible_cpus();
  uint64_t counts[cpus > 0 ? cpus : 1], total = 0;
  uint32_t zero = 0;
  if (bpf_map_lookup_elem(bpf_object__find_map_fd_by_name(object, "counter"), &zero, counts) == 0)
    for (int i = 0; i < cpus; i++) total += counts[i];
  printf("%llu\n", (unsigned long long)total);
  bpf_object__close(object);
  return 0;
}

/* The program attached (native) to the interface, run on `runs` frames by BPF_PROG_TEST_RUN, one
 * frame per call (a run changes its frame: stripped or encapsulated), with that interface as
 * ingress so that its FIB lookups answer as on real traffic; not live: a redirect is decided, not
 * carried out. The kernel times each run around the program alone. */
static int cost(char **argv) {
  unsigned ifindex = if_nametoindex(argv[2]);
  uint32_t id = 0;
  if (ifindex == 0 || bpf_xdp_query_id((int)ifindex, XDP_FLAGS_DRV_MODE, &id) != 0 || id == 0) {
    fprintf(stderr, "xdp-gen: no native XDP program on %s\n", argv[2]);
    return 1;
  }
  int program = bpf_prog_get_fd_by_id(id);
  uint64_t runs = strtoull(argv[3], NULL, 0);
  spread sp;
  if (program < 0 || !parse_spread(argv + 4, &sp)) return 1;
  uint64_t ns = 0, redirects = 0;
  static uint8_t frame[MAX_FRAME];
  order o = {.random = 31};
  for (uint64_t i = 0; i < runs; i++) {
    memcpy(frame, frames[0], sp.length);
    spread_frame(frame, next_pick(&o, &sp), &sp);
    struct xdp_md context = {.data_end = (uint32_t)sp.length, .ingress_ifindex = ifindex};
    LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame, .data_size_in = (uint32_t)sp.length,
                .ctx_in = &context, .ctx_size_in = sizeof context, .repeat = 1);
    if (bpf_prog_test_run_opts(program, &run) != 0) {
      fprintf(stderr, "xdp-gen: BPF_PROG_TEST_RUN: %s\n", strerror(errno));
      return 1;
    }
    ns += run.duration;
    if (run.retval == XDP_REDIRECT) redirects++;
  }
  printf("%.1f %llu\n", (double)ns / (double)runs, (unsigned long long)redirects);
  return 0;
}

int main(int argc, char **argv) {
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
  if (argc == 5 + SPREAD_ARGS && strcmp(argv[1], "gen") == 0) return generate(argv);
  if (argc == 4 && strcmp(argv[1], "sink") == 0) return sink(argv);
  if (argc == 4 + SPREAD_ARGS && strcmp(argv[1], "cost") == 0) return cost(argv);
  fprintf(stderr, "usage: gen <if> <cpu> <seconds> <hex frame> <sessions> <flows> <teid at> "
                  "<teid base> <address at> <address base> <ip at> <port at> <burst min> <burst max> | "
                  "sink <object> <if> | cost <if> <runs> <hex frame> <sessions> ... <burst max>\n");
  return 2;
}
