/* The UPF's fast path (docs/upf.md "The XDP datapath"): one XDP program on the N3 and N6 interfaces.
 *
 * Uplink: a G-PDU (TS 29.281) to the N3 address and port whose TEID is a session's is checked
 * (anti-spoofing, uplink AMBR), counted, stripped of its outer headers and redirected to the interface
 * the kernel's FIB names for the inner destination. Downlink: an IP packet to a session's IPv4 address
 * or IPv6 /64 with an active tunnel is policed, counted, given GTP-U with a PDU Session Container
 * (TS 38.415 5.5.2.1) and redirected towards the gNB.
 *
 * Everything else meant for the UPF goes to the kernel's stack unchanged, hence to the userspace
 * forwarder exactly as without XDP (echo, error indication, end marker, unknown TEID, malformed or
 * unusual packets, idle sessions' downlink for buffering and paging, neighbours not yet resolved),
 * within a budget of packets per second; other traffic (ARP, the host's own) passes untouched. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "upf-xdp.h"

#define AF_INET 2
#define AF_INET6 10

#define GTPU_G_PDU 255
#define GTPU_EXT_PDU_SESSION_CONTAINER 0x85
#define GTPU_EXT_PDCP_PDU_NUMBER 0xc0
/* Extension headers the program walks at most, and octets of them: more goes to userspace. */
#define MAX_EXTENSIONS 4
#define MAX_EXTENSION_OCTETS 64
/* Outer IPv4 + UDP + GTP-U with the PDU Session Container: what the downlink adds after Ethernet. */
#define DOWNLINK_OVERHEAD (20 + 8 + 16)

/* Sized by the loader from the settings (upf_max_sessions, upf_max_flows) before it loads. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct xdp_config);
} xdp_config SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct xdp_rule);
} xdp_rules SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct xdp_policer);
} xdp_policers SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct xdp_usage);
} xdp_usage SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u32); /* TEID, network order */
  __type(value, __u32); /* slot */
} xdp_by_teid SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u32); /* IPv4 address as on the wire */
  __type(value, __u32);
} xdp_by_ipv4 SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __type(key, __u64); /* the /64 prefix as on the wire */
  __type(value, __u32);
} xdp_by_ipv6 SEC(".maps");

/* A flow stays from its first packet until the forwarder ends it (idle, active timeout, release),
 * read in place at every tick. Not preallocated: a flow the forwarder deletes is freed after the
 * readers that may still hold it are done, so a late update is lost rather than counted into another
 * flow. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct xdp_flow_key);
  __type(value, struct xdp_flow_value);
} xdp_flows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, XDP_C_COUNT);
  __type(key, __u32);
  __type(value, __u64);
} xdp_counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct xdp_budget);
} xdp_budget SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
  __uint(max_entries, XDP_MAX_PORTS);
  __type(key, __u32);
  __type(value, __u32);
} xdp_ports SEC(".maps");

/* Octet by octet: BPF has no memcmp (clang would emit a call). */
static __always_inline int same(const void *a, const void *b, int n) {
  const __u8 *x = a, *y = b;
  __u8 diff = 0;
#pragma unroll
  for (int i = 0; i < 16; i++)
    if (i < n) diff |= x[i] ^ y[i];
  return diff == 0;
}

static __always_inline void add(__u32 counter, __u64 value) {
  __u64 *c = bpf_map_lookup_elem(&xdp_counters, &counter);
  if (c) *c += value;
}

/* Takes octets from a bucket; true when they fit (or there is no limit). Caller holds the lock. */
static __always_inline int bucket_take(struct xdp_bucket *b, __u64 octets, __u64 now) {
  if (b->rate == 0) return 1;
  __u64 elapsed = now > b->last_ns ? now - b->last_ns : 0;
  if (elapsed > b->fill_ns) elapsed = b->fill_ns;
  __u64 tokens = b->tokens + elapsed * b->rate;
  if (tokens > b->burst) tokens = b->burst;
  b->last_ns = now;
  __u64 need = octets << XDP_FP;
  if (tokens < need) {
    b->tokens = tokens;
    return 0;
  }
  b->tokens = tokens - need;
  return 1;
}

/* The budget of packets handed to the stack: XDP_PASS, or XDP_DROP counted when it is spent. */
static __always_inline int to_stack(void) {
  __u32 zero = 0;
  struct xdp_budget *budget = bpf_map_lookup_elem(&xdp_budget, &zero);
  if (!budget) return XDP_PASS;
  __u64 now = bpf_ktime_get_ns();
  bpf_spin_lock(&budget->lock);
  int ok = bucket_take(&budget->bucket, 1, now);
  bpf_spin_unlock(&budget->lock);
  if (!ok) {
    add(XDP_C_TO_STACK_LIMITED, 1);
    return XDP_DROP;
  }
  add(XDP_C_TO_STACK, 1);
  return XDP_PASS;
}

/* Counts a packet in its flow, and in the slot's flow_packets once it is in the map; a new flow that
 * finds the map full is counted, the packet goes on. */
static __always_inline void account(struct xdp_flow_key *key, __u64 octets, __u32 *slot) {
  struct xdp_flow_value *v = bpf_map_lookup_elem(&xdp_flows, key);
  if (!v) {
    struct xdp_flow_value fresh = {.packets = 1, .bytes = octets};
    if (bpf_map_update_elem(&xdp_flows, key, &fresh, BPF_NOEXIST) != 0) {
      v = bpf_map_lookup_elem(&xdp_flows, key); /* another CPU made it first */
      if (!v) {
        add(XDP_C_FLOW_TABLE_FULL, 1);
        return;
      }
    } else {
      add(XDP_C_FLOWS_INSERTED, 1);
    }
  }
  if (v) {
    __sync_fetch_and_add(&v->packets, 1);
    __sync_fetch_and_add(&v->bytes, octets);
  }
  struct xdp_usage *usage = bpf_map_lookup_elem(&xdp_usage, slot);
  if (usage) usage->flow_packets++;
}

/* The inner packet at ip (IPv4 or IPv6, checked against data_end): fills the key's addresses,
 * protocol and ports as the forwarder's parse_ip does, returns its length from its own header, 0
 * when it is not one the program handles (userspace judges it). */
static __always_inline __u32 inner_packet(void *ip, void *data_end, struct xdp_flow_key *key) {
  __u8 *p = ip;
  if ((void *)(p + 1) > data_end) return 0;
  __u32 header, total;
  int first_fragment = 1;
  if (p[0] >> 4 == 4) {
    struct iphdr *h = ip;
    if ((void *)(h + 1) > data_end) return 0;
    header = (__u32)h->ihl * 4;
    total = bpf_ntohs(h->tot_len);
    if (header < 20 || total < header) return 0;
    first_fragment = (h->frag_off & bpf_htons(0x1fff)) == 0;
    key->family = 4;
    key->protocol = h->protocol;
    __builtin_memcpy(key->source, &h->saddr, 4);
    __builtin_memcpy(key->destination, &h->daddr, 4);
  } else if (p[0] >> 4 == 6) {
    struct ipv6hdr *h = ip;
    if ((void *)(h + 1) > data_end) return 0;
    header = 40;
    total = 40 + (__u32)bpf_ntohs(h->payload_len);
    key->family = 6;
    key->protocol = h->nexthdr;
    __builtin_memcpy(key->source, &h->saddr, 16);
    __builtin_memcpy(key->destination, &h->daddr, 16);
  } else {
    return 0;
  }
  if ((key->protocol == IPPROTO_TCP || key->protocol == IPPROTO_UDP ||
       key->protocol == IPPROTO_SCTP) &&
      first_fragment && total >= header + 4) {
    __u8 *l4 = p + (header & 0x3f);
    if ((void *)(l4 + 4) > data_end) return 0;
    key->source_port = (__u16)(l4[0] << 8 | l4[1]);
    key->destination_port = (__u16)(l4[2] << 8 | l4[3]);
  }
  return total;
}

/* Routing as the kernel would (the FIB, the neighbour table): 0 with the egress in fib, or -1 when
 * the answer is not a plain next hop on an interface the program may redirect to. */
static __always_inline int route(struct xdp_md *ctx, struct bpf_fib_lookup *fib) {
  fib->ifindex = ctx->ingress_ifindex;
  if (bpf_fib_lookup(ctx, fib, sizeof *fib, 0) != BPF_FIB_LKUP_RET_SUCCESS) return -1;
  __u32 out = fib->ifindex;
  return bpf_map_lookup_elem(&xdp_ports, &out) ? 0 : -1;
}

/* RFC 1624 incremental update of the IPv4 checksum for TTL - 1 (as the kernel's ip_decrease_ttl). */
static __always_inline void decrease_ttl(struct iphdr *h) {
  __u32 check = (__u32)h->check;
  check += (__u32)bpf_htons(0x0100);
  h->check = (__u16)(check + (check >= 0xffff));
  h->ttl--;
}

static __always_inline __u16 ipv4_checksum(struct iphdr *h) {
  __u16 *w = (__u16 *)h;
  __u32 sum = 0;
#pragma unroll
  for (int i = 0; i < 10; i++) sum += w[i];
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return (__u16)~sum;
}

static __always_inline int session_source(const struct xdp_rule *rule, const struct xdp_flow_key *key) {
  if (key->family == 4) return rule->has_ipv4 && same(key->source, rule->ipv4, 4);
  return rule->has_ipv6 && same(key->source, rule->ipv6_prefix, 8);
}

/* Trims octets after the inner packet (link-layer padding) so that it leaves as long as it says. */
static __always_inline int trim(struct xdp_md *ctx, __u32 beyond) {
  if (beyond == 0) return 0;
  if (beyond > 256) return -1;
  return bpf_xdp_adjust_tail(ctx, -(int)beyond);
}

static __always_inline int uplink(struct xdp_md *ctx, const struct xdp_config *config, __u8 *gtp,
                                  __u32 udp_payload) {
  void *data_end = (void *)(long)ctx->data_end;
  if ((void *)(gtp + 8) > data_end) return to_stack();
  /* TS 29.281 5.1: version 1, PT 1; only G-PDUs here (echo, end marker, error indication: userspace) */
  if ((gtp[0] & 0xf0) != 0x30 || gtp[1] != GTPU_G_PDU) return to_stack();
  __u32 length = (__u32)(gtp[2] << 8 | gtp[3]);
  if (length + 8 != udp_payload) return to_stack();
  __u32 teid;
  __builtin_memcpy(&teid, gtp + 4, 4);
  __u32 offset = 8;
  if (gtp[0] & 0x07) {
    if ((void *)(gtp + 12) > data_end) return to_stack();
    offset = 12;
    /* 5.2: each extension header's length is in 4-octet units and its last octet names the next. */
    __u8 next = (gtp[0] & 0x04) ? gtp[11] : 0;
    for (int i = 0; i < MAX_EXTENSIONS && next != 0; i++) {
      /* 5.2.1: comprehension required (high bit) and not one the UPF knows: userspace counts it. */
      if ((next & 0x80) && next != GTPU_EXT_PDU_SESSION_CONTAINER && next != GTPU_EXT_PDCP_PDU_NUMBER)
        return to_stack();
      __u8 *ext = gtp + (offset & 0xff);
      if ((void *)(ext + 1) > data_end) return to_stack();
      __u32 units = ext[0];
      if (units == 0) return to_stack();
      offset += units * 4;
      if (offset > 12 + MAX_EXTENSION_OCTETS) return to_stack();
      __u8 *last = gtp + ((offset - 1) & 0xff);
      if ((void *)(last + 1) > data_end) return to_stack();
      next = *last;
    }
    if (next != 0) return to_stack();
  }
  if (offset >= udp_payload) return to_stack();
  __u32 *slot = bpf_map_lookup_elem(&xdp_by_teid, &teid);
  if (!slot) return to_stack(); /* unknown TEID: userspace answers with an Error Indication */
  struct xdp_rule *rule = bpf_map_lookup_elem(&xdp_rules, slot);
  if (!rule) return to_stack();

  __u8 *inner = gtp + (offset & 0xff);
  struct xdp_flow_key key = {};
  __u32 total = inner_packet(inner, data_end, &key);
  __u32 carried = udp_payload - offset;
  if (total == 0 || total > carried || carried - total > 256) return to_stack();
  key.session = rule->id;
  key.direction = 0;
  if (!session_source(rule, &key)) {
    key.action = 1;
    add(XDP_C_N3_RECEIVED, 1);
    add(XDP_C_DROP_SPOOFED, 1);
    account(&key, total, slot);
    return XDP_DROP;
  }
  /* TTL or hop limit running out: the kernel sends the ICMP error, as on the TUN path. */
  if (key.family == 4 ? ((struct iphdr *)inner)->ttl <= 1 : ((struct ipv6hdr *)inner)->hop_limit <= 1)
    return to_stack();

  struct bpf_fib_lookup fib = {};
  fib.tot_len = (__u16)total;
  if (key.family == 4) {
    struct iphdr *h = (struct iphdr *)inner;
    fib.family = AF_INET;
    fib.tos = h->tos;
    fib.l4_protocol = h->protocol;
    fib.ipv4_src = h->saddr;
    fib.ipv4_dst = h->daddr;
  } else {
    struct ipv6hdr *h = (struct ipv6hdr *)inner;
    fib.family = AF_INET6;
    fib.l4_protocol = h->nexthdr;
    __builtin_memcpy(fib.ipv6_src, &h->saddr, 16);
    __builtin_memcpy(fib.ipv6_dst, &h->daddr, 16);
  }
  if (route(ctx, &fib) < 0) return to_stack();

  struct xdp_policer *policer = bpf_map_lookup_elem(&xdp_policers, slot);
  if (!policer) return to_stack();
  __u64 now = bpf_ktime_get_ns();
  bpf_spin_lock(&policer->lock);
  int fits = bucket_take(&policer->uplink, total, now);
  bpf_spin_unlock(&policer->lock);
  add(XDP_C_N3_RECEIVED, 1);
  if (!fits) {
    key.action = 1;
    add(XDP_C_DROP_UPLINK_AMBR, 1);
    account(&key, total, slot);
    return XDP_DROP;
  }
  struct xdp_usage *usage = bpf_map_lookup_elem(&xdp_usage, slot);
  if (usage) {
    usage->uplink_packets++;
    usage->uplink_bytes += total;
  }
  add(XDP_C_UPLINK_PACKETS, 1);
  add(XDP_C_UPLINK_BYTES, total);
  account(&key, total, slot);

  if (key.family == 4)
    decrease_ttl((struct iphdr *)inner);
  else
    ((struct ipv6hdr *)inner)->hop_limit--;
  /* Outer removal (TS 29.281 is the tunnel's end here): keep room for the new Ethernet header. */
  void *data = (void *)(long)ctx->data;
  int strip = (int)((long)inner - (long)data) - (int)sizeof(struct ethhdr);
  if (bpf_xdp_adjust_head(ctx, strip) != 0) return XDP_DROP;
  if (trim(ctx, carried - total) != 0) return XDP_DROP;
  data = (void *)(long)ctx->data;
  data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end) return XDP_DROP;
  __builtin_memcpy(eth->h_dest, fib.dmac, ETH_ALEN);
  __builtin_memcpy(eth->h_source, fib.smac, ETH_ALEN);
  eth->h_proto = key.family == 4 ? bpf_htons(ETH_P_IP) : bpf_htons(ETH_P_IPV6);
  (void)config;
  return bpf_redirect_map(&xdp_ports, fib.ifindex, 0);
}

static __always_inline int downlink(struct xdp_md *ctx, const struct xdp_config *config, __u32 *slot,
                                    void *ip) {
  void *data_end = (void *)(long)ctx->data_end;
  struct xdp_rule *rule = bpf_map_lookup_elem(&xdp_rules, slot);
  if (!rule) return to_stack();
  /* Idle or not yet set up: userspace buffers the packet and pages (docs/upf.md). The UDP checksum
   * an IPv6 N3 needs over the whole datagram is left to userspace too. */
  if (!rule->active || config->family != 4) return to_stack();
  struct xdp_flow_key key = {};
  __u32 total = inner_packet(ip, data_end, &key);
  void *data = (void *)(long)ctx->data;
  __u32 carried = (__u32)((long)data_end - (long)ip);
  if (total == 0 || total > carried || carried - total > 256) return to_stack();
  if (total + DOWNLINK_OVERHEAD > 65535) return to_stack();
  if (key.family == 4 ? ((struct iphdr *)ip)->ttl <= 1 : ((struct ipv6hdr *)ip)->hop_limit <= 1)
    return to_stack();
  key.session = rule->id;
  key.direction = 1;

  struct bpf_fib_lookup fib = {};
  fib.family = AF_INET;
  fib.l4_protocol = IPPROTO_UDP;
  fib.tot_len = (__u16)(total + DOWNLINK_OVERHEAD);
  __builtin_memcpy(&fib.ipv4_src, config->n3, 4);
  __builtin_memcpy(&fib.ipv4_dst, rule->gnb, 4);
  if (route(ctx, &fib) < 0) return to_stack();

  struct xdp_policer *policer = bpf_map_lookup_elem(&xdp_policers, slot);
  if (!policer) return to_stack();
  __u64 now = bpf_ktime_get_ns();
  bpf_spin_lock(&policer->lock);
  int fits = bucket_take(&policer->downlink, total, now);
  bpf_spin_unlock(&policer->lock);
  if (!fits) {
    key.action = 1;
    add(XDP_C_DROP_DOWNLINK_AMBR, 1);
    account(&key, total, slot);
    return XDP_DROP;
  }
  struct xdp_usage *usage = bpf_map_lookup_elem(&xdp_usage, slot);
  if (usage) {
    usage->downlink_packets++;
    usage->downlink_bytes += total;
  }
  add(XDP_C_DOWNLINK_PACKETS, 1);
  add(XDP_C_DOWNLINK_BYTES, total);
  account(&key, total, slot);

  if (key.family == 4)
    decrease_ttl((struct iphdr *)ip);
  else
    ((struct ipv6hdr *)ip)->hop_limit--;
  __u32 remote_teid = rule->remote_teid;
  __u8 qfi = rule->qfi;
  __u16 gnb_port = rule->gnb_port;
  __u32 gnb, n3;
  __builtin_memcpy(&gnb, rule->gnb, 4);
  __builtin_memcpy(&n3, config->n3, 4);
  __u16 n3_port = config->n3_port;
  if (trim(ctx, carried - total) != 0) return XDP_DROP;
  if (bpf_xdp_adjust_head(ctx, -DOWNLINK_OVERHEAD) != 0) return XDP_DROP;
  data = (void *)(long)ctx->data;
  data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  struct iphdr *outer = (struct iphdr *)(eth + 1);
  struct udphdr *udp = (struct udphdr *)(outer + 1);
  __u8 *gtp = (__u8 *)(udp + 1);
  if ((void *)(gtp + 16) > data_end) return XDP_DROP;
  __builtin_memcpy(eth->h_dest, fib.dmac, ETH_ALEN);
  __builtin_memcpy(eth->h_source, fib.smac, ETH_ALEN);
  eth->h_proto = bpf_htons(ETH_P_IP);
  outer->version = 4;
  outer->ihl = 5;
  outer->tos = 0;
  outer->tot_len = bpf_htons((__u16)(total + DOWNLINK_OVERHEAD));
  outer->id = 0;
  outer->frag_off = bpf_htons(0x4000); /* DF, as the forwarder's socket sends (path MTU discovery) */
  outer->ttl = 64;
  outer->protocol = IPPROTO_UDP;
  outer->check = 0;
  outer->saddr = n3;
  outer->daddr = gnb;
  outer->check = ipv4_checksum(outer);
  udp->source = n3_port;
  udp->dest = gnb_port;
  udp->len = bpf_htons((__u16)(total + 8 + 16));
  udp->check = 0; /* optional over IPv4 (RFC 768), as the forwarder's socket leaves it */
  /* As gtpu_write_downlink_header: G-PDU with E = 1, the DL PDU SESSION INFORMATION (TS 38.415
   * 5.5.2.1: PDU type 0, QFI) in a PDU Session Container. */
  gtp[0] = 0x34;
  gtp[1] = GTPU_G_PDU;
  gtp[2] = (__u8)((total + 8) >> 8);
  gtp[3] = (__u8)(total + 8);
  __builtin_memcpy(gtp + 4, &remote_teid, 4);
  gtp[8] = 0;
  gtp[9] = 0;
  gtp[10] = 0;
  gtp[11] = GTPU_EXT_PDU_SESSION_CONTAINER;
  gtp[12] = 1;
  gtp[13] = 0;
  gtp[14] = qfi & 0x3f;
  gtp[15] = 0;
  return bpf_redirect_map(&xdp_ports, fib.ifindex, 0);
}

SEC("xdp")
int upf_xdp(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end) return XDP_PASS;
  __u32 zero = 0;
  struct xdp_config *config = bpf_map_lookup_elem(&xdp_config, &zero);
  if (!config) return XDP_PASS;
  if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *h = (struct iphdr *)(eth + 1);
    if ((void *)(h + 1) > data_end) return XDP_PASS;
    if (config->family == 4 && same(&h->daddr, config->n3, 4)) {
      if (h->protocol != IPPROTO_UDP) return XDP_PASS;
      /* Options or fragments: the stack reassembles, userspace handles. */
      if (h->ihl != 5 || (h->frag_off & bpf_htons(0x3fff)) != 0) return to_stack();
      struct udphdr *udp = (struct udphdr *)(h + 1);
      if ((void *)(udp + 1) > data_end) return XDP_PASS;
      if (udp->dest != config->n3_port) return XDP_PASS;
      __u32 udp_length = bpf_ntohs(udp->len);
      if (udp_length < 8 || udp_length + 20 != bpf_ntohs(h->tot_len)) return to_stack();
      return uplink(ctx, config, (__u8 *)(udp + 1), udp_length - 8);
    }
    __u32 *slot = bpf_map_lookup_elem(&xdp_by_ipv4, &h->daddr);
    return slot ? downlink(ctx, config, slot, h) : XDP_PASS;
  }
  if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
    struct ipv6hdr *h = (struct ipv6hdr *)(eth + 1);
    if ((void *)(h + 1) > data_end) return XDP_PASS;
    if (config->family == 6 && same(&h->daddr, config->n3, 16)) {
      /* Not UDP first (ICMPv6, the host's own TCP, or extension headers in front of UDP): the stack's,
       * outside the budget. */
      if (h->nexthdr != IPPROTO_UDP) return XDP_PASS;
      struct udphdr *udp = (struct udphdr *)(h + 1);
      if ((void *)(udp + 1) > data_end) return XDP_PASS;
      if (udp->dest != config->n3_port) return XDP_PASS;
      __u32 udp_length = bpf_ntohs(udp->len);
      if (udp_length < 8 || udp_length != bpf_ntohs(h->payload_len)) return to_stack();
      return uplink(ctx, config, (__u8 *)(udp + 1), udp_length - 8);
    }
    __u64 prefix;
    __builtin_memcpy(&prefix, &h->daddr, 8);
    __u32 *slot = bpf_map_lookup_elem(&xdp_by_ipv6, &prefix);
    return slot ? downlink(ctx, config, slot, h) : XDP_PASS;
  }
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
