/* What the UPF's XDP program (upf.bpf.c) and its loader (../xdp.c) share: the maps' keys and values
 * and the program's counters. Plain fixed-size types, the same layout on both sides. */
#ifndef PMN_UPF_XDP_SHARED_H
#define PMN_UPF_XDP_SHARED_H

#include <linux/bpf.h>
#include <linux/types.h>

/* The program's counters (per CPU), added by the loader to the forwarder's of the same meaning. */
enum {
  XDP_C_N3_RECEIVED,
  XDP_C_UPLINK_PACKETS,
  XDP_C_UPLINK_BYTES,
  XDP_C_DOWNLINK_PACKETS,
  XDP_C_DOWNLINK_BYTES,
  XDP_C_DROP_SPOOFED,
  XDP_C_DROP_UPLINK_AMBR,
  XDP_C_DROP_DOWNLINK_AMBR,
  XDP_C_FLOW_TABLE_FULL,
  /* Packets for the UPF the program handed to the kernel's stack, hence to the userspace forwarder. */
  XDP_C_TO_STACK,
  /* ... and those it dropped instead, over the hand-over budget (xdp_config.to_stack_per_second). */
  XDP_C_TO_STACK_LIMITED,
  /* Flows the program put in its map (a flow stays there until the forwarder ends it). */
  XDP_C_FLOWS_INSERTED,
  XDP_C_COUNT
};

struct xdp_config {
  __u8 family; /* of the N3 address: 4 or 6 */
  __u8 pad;
  __u16 n3_port; /* network order */
  __u32 pad2;
  __u8 n3[16]; /* an IPv4 address in the first 4 octets */
  __u64 to_stack_per_second;
};

/* A token bucket in octets, in fixed point (<< XDP_FP): rate per ns, tokens capped at burst. The
 * refill is computed over at most fill_ns, which keeps the product within 64 bits. rate 0: no limit. */
#define XDP_FP 30
struct xdp_bucket {
  __u64 rate;
  __u64 burst;
  __u64 fill_ns;
  __u64 tokens;
  __u64 last_ns;
};

/* Per session slot: the AMBR buckets of both directions under one lock. */
struct xdp_policer {
  struct bpf_spin_lock lock;
  __u32 pad;
  struct xdp_bucket uplink;
  struct xdp_bucket downlink;
};

/* The budget of packets handed to the stack (one entry). */
struct xdp_budget {
  struct bpf_spin_lock lock;
  __u32 pad;
  struct xdp_bucket bucket;
};

/* Per session slot: the rules. A slot is used while its TEID is in xdp_by_teid. */
struct xdp_rule {
  __u32 id;
  __u32 remote_teid;
  __u8 active; /* a downlink tunnel is set: otherwise downlink goes to userspace (buffering) */
  __u8 qfi;
  __u8 has_ipv4;
  __u8 has_ipv6;
  __u8 ipv4[4];
  __u8 ipv6_prefix[8];
  __u8 gnb[16]; /* the gNB's N3 address, of the N3 address's family */
  __u16 gnb_port; /* network order */
  __u16 pad;
};

/* Per session slot, per CPU: what the program forwarded (inner IP octets), and the packets it counted
 * in xdp_flows (allow or drop): while these equal what the loader has read of the session's flows,
 * the map holds no entry of the session the loader does not know of, and a release need not walk it. */
struct xdp_usage {
  __u64 uplink_packets;
  __u64 uplink_bytes;
  __u64 downlink_packets;
  __u64 downlink_bytes;
  __u64 flow_packets;
};

/* The forwarder's flow key (flows.h upf_flow_key), field for field; ports in host order. */
struct xdp_flow_key {
  __u32 session;
  __u8 family;
  __u8 protocol;
  __u8 direction; /* 0 uplink, 1 downlink */
  __u8 action;    /* 0 allow, 1 drop */
  __u16 source_port;
  __u16 destination_port;
  __u8 source[16];
  __u8 destination[16];
};

struct xdp_flow_value {
  __u64 packets;
  __u64 bytes;
};

/* Interfaces a packet may be redirected to (the ones the program is attached to). */
#define XDP_MAX_PORTS 16

#endif
