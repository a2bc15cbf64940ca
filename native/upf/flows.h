/* Flow accounting (network.md 7): packets and bytes per (session, source, destination, ports,
 * protocol, direction, action), kept by the forwarder from a flow's first packet to its end. The core
 * ticks the table on its own clock (once a second): a tick stamps the flows that had packets since the
 * last one and ends those idle for idleMs or active for activeMs; a session's release ends its flows.
 * Ended flows wait in a FIFO until the core takes them, a bounded number at a time, as compact
 * records; only then is their slot free again. Everything is bounded by the limit given at init: when
 * no slot is free a new flow is refused (the caller counts it, the packet is still forwarded), so a
 * core that cannot keep up makes flowTableFull grow instead of memory or lost reports. */
#ifndef PMN_UPF_FLOWS_H
#define PMN_UPF_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t session;
  uint8_t family; /* 4 or 6 */
  uint8_t protocol;
  uint8_t direction; /* 0 uplink, 1 downlink */
  uint8_t action;    /* 0 allow, 1 drop */
  uint16_t source_port;
  uint16_t destination_port;
  uint8_t source[16];
  uint8_t destination[16];
} upf_flow_key;

/* No flow: the end of a session's list. */
#define UPF_NO_FLOW UINT32_MAX

typedef struct {
  upf_flow_key key;
  uint64_t packets;
  uint64_t bytes;
  double start_ms; /* the tick before the one that first saw it */
  double end_ms;   /* the last tick that saw packets */
  uint32_t hash;
  uint32_t live_position;  /* in upf_flows.live while open */
  uint32_t session_prev;   /* the session's open flows, a doubly linked list of pool indices */
  uint32_t session_next;
  uint32_t *session_head; /* where the session keeps its list's first flow */
  bool dirty; /* packets since the last tick */
  bool fresh; /* not ticked yet: no start time */
  /* The XDP program's map holds this flow's key too (xdp.h): what its entry held when last read, so
   * that each read adds only what came since. */
  bool in_xdp;
  uint64_t xdp_packets;
  uint64_t xdp_bytes;
} upf_flow;

/* Called for each flow about to end (its counts may still grow: the flow is stamped after). */
typedef void upf_flow_end_fn(void *context, upf_flow *flow);

typedef struct {
  upf_flow *pool;
  uint32_t limit;
  uint32_t *free_list;
  uint32_t free_count;
  uint32_t *slots; /* the hash table of open flows: pool index + 1, 0 for empty */
  uint32_t mask;
  uint32_t *live; /* pool indices of open flows, for ticks proportional to them */
  uint32_t live_count;
  uint32_t *ended; /* a ring of pool indices of ended flows, oldest first */
  uint32_t ended_head;
  uint32_t ended_count;
  uint64_t ended_total; /* flows ever ended: the position of the ring's newest entry */
  upf_flow_end_fn *on_end; /* optional */
  void *on_end_context;
} upf_flows;

/* One ended flow on the wire to JavaScript, little-endian, 80 octets: session u32, family u8,
 * protocol u8, direction u8, action u8, source port u16, destination port u16, source [16],
 * destination [16], 4 zero octets, packets u64, bytes u64, start f64 (ms), end f64 (ms). */
#define UPF_FLOW_RECORD 80

bool upf_flows_init(upf_flows *flows, uint32_t limit);
void upf_flows_free(upf_flows *flows);
/* Counts packets (one, or those the XDP program counted) of octets in all; *session_head is the
 * session's list of open flows. false when the flow is new and no slot is free. */
bool upf_flows_add(upf_flows *flows, const upf_flow_key *key, uint64_t packets, uint64_t bytes,
                   uint32_t *session_head);
/* The open flow of the key, a new one (no packets yet: the caller counts some with upf_flows_count
 * before the next tick) when there is none, NULL when it is new and no slot is free. */
upf_flow *upf_flows_open(upf_flows *flows, const upf_flow_key *key, uint32_t *session_head);
void upf_flows_count(upf_flow *flow, uint64_t packets, uint64_t bytes);
/* Stamps the flows seen since the last tick with now_ms (a new one starts at previous_ms) and ends
 * those idle for idle_ms or active for active_ms. */
void upf_flows_tick(upf_flows *flows, double now_ms, double previous_ms, double idle_ms,
                    double active_ms);
/* Ends every open flow of a session (its release; before the session's head goes away), stamping
 * those with packets since the last tick. */
void upf_flows_end_session(upf_flows *flows, uint32_t *session_head, double now_ms,
                           double previous_ms);
/* Writes up to max of the oldest ended flows into out (UPF_FLOW_RECORD octets each), frees their
 * slots and returns how many. */
uint32_t upf_flows_take(upf_flows *flows, uint8_t *out, uint32_t max);

#endif
