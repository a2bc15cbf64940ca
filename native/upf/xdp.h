/* The UPF's XDP datapath (bpf/upf.bpf.c) loaded and fed through libbpf: the forwarder (forwarder.c)
 * mirrors each session's rules into the program's maps, by the session's slot, and adds the
 * program's counters, usage and flows to its own. Without libbpf at build time upf_xdp_open says so
 * and the forwarder runs alone (the TUN datapath). Calls are made under the forwarder's mutex. */
#ifndef PMN_UPF_XDP_H
#define PMN_UPF_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "flows.h"

typedef struct upf_xdp upf_xdp;

typedef struct {
  const char *object_path; /* the compiled program (build/Release/upf.bpf.o) */
  const struct sockaddr_storage *n3; /* the bound N3 address and port */
  const char *n6_interface;          /* the interface towards the data network */
  uint32_t max_sessions;
  uint32_t max_flows;
  /* Packets per second the program hands to the stack (so to the userspace forwarder) at most. */
  uint32_t to_stack_per_second;
  /* Native mode on veth too (generic otherwise): only where every veth peer the program redirects
   * into runs XDP or GRO, as the benches' sinks do (bench/upf-xdp.ts). */
  bool native_on_veth;
} upf_xdp_config;

/* 0, or an errno with reason (a sentence) saying why the datapath cannot run here. */
int upf_xdp_open(const upf_xdp_config *config, upf_xdp **out, char *reason, size_t reason_size);
void upf_xdp_close(upf_xdp *xdp);
/* Where and how it is attached, for the start's log line:
 * "N3 veth0 (generic), N6 veth1 (generic)". */
const char *upf_xdp_description(const upf_xdp *xdp);

/* Each returns 0 or an errno (the maps are sized by the settings, so only ENOMEM is expected). */
int upf_xdp_add_session(upf_xdp *xdp, uint32_t slot, uint32_t id, uint32_t uplink_teid,
                        const uint8_t *ipv4, const uint8_t *ipv6_prefix, uint64_t uplink_bps,
                        uint64_t downlink_bps);
int upf_xdp_set_ambr(upf_xdp *xdp, uint32_t slot, uint64_t uplink_bps, uint64_t downlink_bps);
/* gnb of the N3 address's family. */
int upf_xdp_set_downlink(upf_xdp *xdp, uint32_t slot, const struct sockaddr *gnb,
                         uint32_t remote_teid, uint8_t qfi);
int upf_xdp_clear_downlink(upf_xdp *xdp, uint32_t slot);
/* Removes the keys that lead to the slot; its usage stays readable (upf_xdp_usage) until the slot
 * is added again. */
void upf_xdp_remove_session(upf_xdp *xdp, uint32_t slot, uint32_t uplink_teid, const uint8_t *ipv4,
                            const uint8_t *ipv6_prefix);
/* Inner IP octets the program forwarded for the slot since it was added, and the packets it counted in
 * its flow map for the slot (allow or drop) in that time. */
void upf_xdp_usage(upf_xdp *xdp, uint32_t slot, uint64_t *uplink_bytes, uint64_t *downlink_bytes,
                   uint64_t *flow_packets);
/* The same for every slot, read in batches (a few system calls for all sessions). */
typedef void upf_xdp_usage_fn(void *context, uint32_t slot, uint64_t uplink_bytes,
                              uint64_t downlink_bytes);
void upf_xdp_usage_all(upf_xdp *xdp, upf_xdp_usage_fn *fn, void *context);

/* The program's counters, summed over the CPUs, in the forwarder's terms. */
typedef struct {
  uint64_t n3_received, uplink_packets, uplink_bytes, downlink_packets, downlink_bytes;
  uint64_t drop_spoofed, drop_uplink_ambr, drop_downlink_ambr, flow_table_full;
  uint64_t to_stack, to_stack_limited, flows_inserted;
} upf_xdp_counters;
void upf_xdp_read_counters(upf_xdp *xdp, upf_xdp_counters *out);

/* Reads every flow in the program's map in place (a few system calls for all): each entry's packets
 * and octets since the program inserted it. Entries stay: a live flow's next packet finds its own. */
typedef void upf_xdp_flow_fn(void *context, const upf_flow_key *key, uint64_t packets,
                             uint64_t bytes);
void upf_xdp_read_flows(upf_xdp *xdp, upf_xdp_flow_fn *fn, void *context);
/* Deletes one flow from the map, with what it held then: 0, or ENOENT when it is not there. */
int upf_xdp_take_flow(upf_xdp *xdp, const upf_flow_key *key, uint64_t *packets, uint64_t *bytes);

#endif
