/* Flow accounting: packets and bytes per (session, source, destination, ports, protocol, direction,
 * action) since the last drain. The table is bounded; packets of a flow that does not fit are
 * counted by the caller as an overflow, never forwarded differently. */
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

typedef struct {
  upf_flow_key key;
  uint64_t packets;
  uint64_t bytes;
} upf_flow;

typedef struct {
  upf_flow *slots;
  uint8_t *used;
  uint32_t *order; /* indices of used slots, for a drain proportional to the flows present */
  uint32_t mask;
  uint32_t count;
  uint32_t limit;
} upf_flows;

/* One drained flow on the wire to JavaScript: little-endian, 64 octets. */
#define UPF_FLOW_RECORD 64

bool upf_flows_init(upf_flows *flows, uint32_t limit);
void upf_flows_free(upf_flows *flows);
/* false when the table is full and the flow is new. */
bool upf_flows_add(upf_flows *flows, const upf_flow_key *key, uint64_t bytes);
/* Writes every flow as a record into out (count * UPF_FLOW_RECORD octets) and empties the table. */
void upf_flows_drain(upf_flows *flows, uint8_t *out);

#endif
