/* The UPF's forwarder: an N3 UDP socket (GTP-U), an N6 TUN device and the per-session rules between
 * them, driven by one thread of its own. Every function but upf_open/upf_close may be called from
 * any thread; they take the forwarder's mutex, which the thread holds while it handles a batch. */
#ifndef PMN_UPF_FORWARDER_H
#define PMN_UPF_FORWARDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define UPF_COUNTERS(X)                                                                          \
  X(N3_RECEIVED, "n3Received")                                                                   \
  X(UPLINK_PACKETS, "uplinkPackets")                                                             \
  X(UPLINK_BYTES, "uplinkBytes")                                                                 \
  X(UPLINK_JOINED, "uplinkJoined")                                                               \
  X(DOWNLINK_PACKETS, "downlinkPackets")                                                         \
  X(DOWNLINK_BYTES, "downlinkBytes")                                                             \
  X(DOWNLINK_SEGMENTED, "downlinkSegmented")                                                     \
  X(ECHO_REQUESTS, "echoRequests")                                                               \
  X(ECHO_RESPONSES, "echoResponses")                                                             \
  X(END_MARKERS_RECEIVED, "endMarkersReceived")                                                  \
  X(END_MARKERS_SENT, "endMarkersSent")                                                          \
  X(ERROR_INDICATIONS_RECEIVED, "errorIndicationsReceived")                                      \
  X(ERROR_INDICATIONS_SENT, "errorIndicationsSent")                                              \
  X(ERROR_INDICATIONS_SUPPRESSED, "errorIndicationsSuppressed")                                  \
  X(DROP_MALFORMED, "dropMalformed")                                                             \
  X(DROP_OVERSIZED, "dropOversized")                                                             \
  X(DROP_UNSUPPORTED_EXTENSION, "dropUnsupportedExtension")                                      \
  X(DROP_UNEXPECTED_TYPE, "dropUnexpectedType")                                                  \
  X(DROP_UNKNOWN_TEID, "dropUnknownTeid")                                                        \
  X(DROP_SPOOFED, "dropSpoofed")                                                                 \
  X(DROP_UPLINK_AMBR, "dropUplinkAmbr")                                                          \
  X(DROP_DOWNLINK_AMBR, "dropDownlinkAmbr")                                                      \
  X(DROP_UNKNOWN_DESTINATION, "dropUnknownDestination")                                          \
  X(DOWNLINK_BUFFERED, "downlinkBuffered")                                                       \
  X(DOWNLINK_BUFFER_FLUSHED, "downlinkBufferFlushed")                                            \
  X(DROP_BUFFER_FULL, "dropBufferFull")                                                          \
  X(DROP_BUFFER_EXPIRED, "dropBufferExpired")                                                    \
  X(DROP_BUFFER_RELEASED, "dropBufferReleased")                                                  \
  X(DROP_N6_WRITE, "dropN6Write")                                                                \
  X(DROP_N3_SEND, "dropN3Send")                                                                  \
  X(FLOW_TABLE_FULL, "flowTableFull")                                                            \
  X(XDP_TO_STACK, "xdpToStack")                                                                  \
  X(XDP_TO_STACK_LIMITED, "xdpToStackLimited")                                                  \
  X(XDP_FLOWS_INSERTED, "xdpFlowsInserted")                                                      \
  X(FORWARDED_PACKETS, "forwardedPackets")                                                       \
  X(FORWARDED_END_MARKERS, "forwardedEndMarkers")

#define UPF_COUNTER_ENUM(name, text) UPF_##name,
typedef enum { UPF_COUNTERS(UPF_COUNTER_ENUM) UPF_COUNTER_COUNT } upf_counter;
#undef UPF_COUNTER_ENUM

extern const char *const upf_counter_names[UPF_COUNTER_COUNT];

typedef struct upf upf;

typedef struct {
  struct sockaddr_storage n3; /* address and port to bind */
  socklen_t n3_length;
  const char *tun_name;
  uint32_t max_sessions;
  uint32_t max_flows;
  uint32_t error_indications_per_second;
  /* How long downlink packets of an inactive session are buffered (the core's clock, in ms). */
  double downlink_buffer_ms;
  /* The XDP datapath (xdp.h) in front of the TUN: never, when it loads, or required. */
  enum { UPF_DATAPATH_TUN, UPF_DATAPATH_AUTO, UPF_DATAPATH_XDP } datapath;
  const char *bpf_object;   /* the compiled XDP program */
  const char *n6_interface; /* the interface towards the data network, for XDP */
  bool xdp_native_on_veth;  /* xdp.h's native_on_veth */
} upf_config;

/* 0, or an errno; *syscall names the failing call (or why the required XDP datapath cannot run). */
int upf_open(const upf_config *config, upf **out, const char **syscall);
/* Which datapath runs ("xdp" or "tun") and why, in words, for the start's log line. */
const char *upf_datapath(const upf *upf);
const char *upf_datapath_reason(const upf *upf);
/* Stops the thread, closes the socket and the TUN, frees everything. */
void upf_close(upf *upf);
/* The bound N3 port (when 0 was asked) and the TUN's name as the kernel made it. */
uint16_t upf_n3_port(const upf *upf);
const char *upf_tun_name(const upf *upf);

/* Each returns 0 or an errno: EEXIST (id, TEID or address in use), ENOSPC (table full), ENOENT (no
 * such session), EAFNOSUPPORT (gNB address of the other family). Rates in bits per second, 0 for no
 * limit. ipv4 (4 octets) and ipv6_prefix (8 octets) may be NULL, not both. */
int upf_add_session(upf *upf, uint32_t id, uint32_t uplink_teid, const uint8_t *ipv4,
                    const uint8_t *ipv6_prefix, uint64_t uplink_bps, uint64_t downlink_bps);
/* Installs or changes the downlink rule; when it replaces an active rule to another gNB or TEID,
 * sends an End Marker on the old path first (TS 23.502 4.9.1.2.2, TS 29.281 7.3.2). The packets
 * buffered while the session was inactive go down the new tunnel first, in order. */
int upf_set_downlink(upf *upf, uint32_t id, const struct sockaddr *gnb, socklen_t gnb_length,
                     uint32_t remote_teid, uint8_t qfi);
/* Indirect data forwarding (TS 23.502 4.9.1.3.2 step 11, 4.9.1.3.3; TS 29.244 5.2.1 FAR with a
 * forwarding tunnel): G-PDUs and End Markers the source gNB sends to forward_teid go on to the
 * target gNB's DL forwarding tunnel (gnb, remote_teid), one per session, until cleared or the session
 * is removed. EEXIST when forward_teid is any session's uplink or forwarding TEID. */
int upf_set_forwarding(upf *upf, uint32_t id, uint32_t forward_teid, const struct sockaddr *gnb,
                       socklen_t gnb_length, uint32_t remote_teid, uint8_t qfi);
int upf_clear_forwarding(upf *upf, uint32_t id);
/* The device went idle: downlink packets are buffered (downlink-buffer.h) until set_downlink. */
int upf_clear_downlink(upf *upf, uint32_t id);
int upf_set_ambr(upf *upf, uint32_t id, uint64_t uplink_bps, uint64_t downlink_bps);
/* Removes the session's rules, drops its buffered packets (drop flows) and ends its flows (stamped
 * as a tick at now_ms would); the out
 * parameters get its usage not yet drained and the flows ended so far, this session's included
 * (upf_flows.ended_total). */
int upf_remove_session(upf *upf, uint32_t id, double now_ms, double previous_ms,
                       uint64_t *uplink_bytes, uint64_t *downlink_bytes, uint64_t *flows_ended);

/* Drops the buffered packets that expired (held downlink_buffer_ms since the tick before they came),
 * then upf_flows_tick, under the mutex. */
void upf_tick_flows(upf *upf, double now_ms, double previous_ms, double idle_ms, double active_ms);
/* Up to max ended flows (UPF_FLOW_RECORD octets each) into a malloc'd buffer, oldest first; NULL on
 * no memory. */
uint8_t *upf_take_flows(upf *upf, uint32_t max, size_t *count);
/* Ids (u32 LE) of the sessions that had downlink data while inactive since the last call, each once
 * until its downlink changes (the Downlink Data Notification role); malloc'd, NULL on no memory. */
uint8_t *upf_take_downlink_data(upf *upf, size_t *count);
/* Open flows, and ended flows waiting to be taken. */
void upf_flow_counts(upf *upf, uint32_t *open, uint32_t *ended);
/* Per session with bytes since the last drain: id u32, 0 u32, uplink u64, downlink u64 (LE). */
#define UPF_USAGE_RECORD 24
uint8_t *upf_drain_usage(upf *upf, size_t *count);
void upf_read_counters(upf *upf, uint64_t *out);
/* Downlink packets buffered now, all sessions. */
uint32_t upf_buffered_packets(upf *upf);
uint32_t upf_session_count(upf *upf);
/* Forwarding tunnels set now (upf_set_forwarding), all sessions. */
uint32_t upf_forwarding_count(upf *upf);

#endif
