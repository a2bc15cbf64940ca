/* The user plane of a simulated gNB: one N3 UDP socket (GTP-U, TS 29.281) and one TUN device per
 * UE session, driven by a thread of its own (epoll over all of them). Uplink: an IP packet the UE's
 * kernel writes into its TUN becomes a G-PDU with the session's uplink TEID and an UL PDU Session
 * Container (TS 38.415 5.5.2.2) to the UPF's N3 address; a TCP segment of up to 64 KiB (the TUN
 * offers TSO: tun-gso.h) becomes one G-PDU per MSS-sized packet, counted in uplinkSegmented; the
 * downlink packets of one TCP connection are joined into segments for the UE's TUN (tun-gro.h),
 * counted in downlinkJoined. Downlink: a G-PDU whose TEID is a session's
 * downlink TEID is written into that session's TUN. Every function but gnb_up_open/gnb_up_close may
 * be called from any thread; they take the mutex the thread holds while it handles a batch. */
#ifndef PMN_GNB_USER_PLANE_H
#define PMN_GNB_USER_PLANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define GNB_UP_COUNTERS(X)                                      \
  X(N3_RECEIVED, "n3Received")                                  \
  X(UPLINK_PACKETS, "uplinkPackets")                            \
  X(UPLINK_BYTES, "uplinkBytes")                                \
  X(UPLINK_SEGMENTED, "uplinkSegmented")                        \
  X(DOWNLINK_PACKETS, "downlinkPackets")                        \
  X(DOWNLINK_BYTES, "downlinkBytes")                            \
  X(DOWNLINK_JOINED, "downlinkJoined")                          \
  X(ECHO_REQUESTS, "echoRequests")                              \
  X(ECHO_RESPONSES, "echoResponses")                            \
  X(END_MARKERS_RECEIVED, "endMarkersReceived")                 \
  X(ERROR_INDICATIONS_RECEIVED, "errorIndicationsReceived")     \
  X(ERROR_INDICATIONS_SENT, "errorIndicationsSent")             \
  X(ERROR_INDICATIONS_SUPPRESSED, "errorIndicationsSuppressed") \
  X(DROP_MALFORMED, "dropMalformed")                            \
  X(DROP_OVERSIZED, "dropOversized")                            \
  X(DROP_UNSUPPORTED_EXTENSION, "dropUnsupportedExtension")     \
  X(DROP_UNEXPECTED_TYPE, "dropUnexpectedType")                 \
  X(DROP_UNKNOWN_TEID, "dropUnknownTeid")                       \
  X(DOWNLINK_HELD, "downlinkHeld")                              \
  X(DOWNLINK_FORWARDED, "downlinkForwarded")                    \
  X(DROP_NOT_READY, "dropNotReady")                             \
  X(DROP_TUN_WRITE, "dropTunWrite")                             \
  X(DROP_N3_SEND, "dropN3Send")

#define GNB_UP_COUNTER_ENUM(name, text) GNB_UP_##name,
typedef enum { GNB_UP_COUNTERS(GNB_UP_COUNTER_ENUM) GNB_UP_COUNTER_COUNT } gnb_up_counter;
#undef GNB_UP_COUNTER_ENUM

extern const char *const gnb_up_counter_names[GNB_UP_COUNTER_COUNT];

/* Per session: uplink packets, uplink bytes, downlink packets, downlink bytes, End Markers. */
#define GNB_UP_SESSION_COUNTERS 5

typedef struct gnb_up gnb_up;

typedef struct {
  struct sockaddr_storage n3; /* the gNB's N3 address and port to bind */
  socklen_t n3_length;
  /* A network namespace file (/var/run/netns/<name>) to open the N3 socket in, so that GTP-U
   * leaves through that namespace's interfaces (a gNB on its own link); NULL: the caller's. */
  const char *n3_namespace;
  uint32_t max_sessions;
  uint32_t error_indications_per_second;
} gnb_up_config;

typedef struct {
  uint32_t id;
  const char *tun_name; /* the TUN device to create ("" lets the kernel name it) */
  uint32_t downlink_teid;
  struct sockaddr_storage upf; /* the UPF's N3 address and port */
  socklen_t upf_length;
  uint32_t uplink_teid;
  uint8_t qfi;
} gnb_up_session;

/* 0, or an errno; *syscall names the failing call. */
int gnb_up_open(const gnb_up_config *config, gnb_up **out, const char **syscall);
void gnb_up_close(gnb_up *g);
uint16_t gnb_up_n3_port(const gnb_up *g);

/* Creates the session's TUN device (named into `actual`, IFNAMSIZ octets) and starts carrying it.
 * 0 or an errno: EEXIST (id or downlink TEID in use), ENOSPC (table full), EAFNOSUPPORT (a UPF
 * address of the other family), or what opening the TUN failed with. */
int gnb_up_add_session(gnb_up *g, const gnb_up_session *session, char *actual);
/* The UE's side of the session is configured (its radio bearer is up): the downlink held since
 * add_session is written into the TUN, in order, and the next goes straight in. Until then downlink
 * G-PDUs are held (the UPF's downlink-buffer.h, its bounds), as a gNB holds downlink data until the
 * DRB is set up: the UPF may send the packets it buffered while the device was idle as soon as the
 * core has the tunnel, before the TUN is configured. ENOENT when there is no such session. */
int gnb_up_set_ready(gnb_up *g, uint32_t id);
/* Stops carrying the session and closes its TUN, which removes the device wherever it lives. */
int gnb_up_remove_session(gnb_up *g, uint32_t id);
/* Handover source with data forwarding (TS 23.502 4.9.1.3.2 step 11, 4.9.1.3.3 step 3): from now on
 * the session's downlink, what is held first and then End Markers, goes on as GTP-U to `to`/`teid`
 * (the forwarding tunnel of the Handover Command) instead of the TUN. ENOENT, EAFNOSUPPORT. */
int gnb_up_forward(gnb_up *g, uint32_t id, const struct sockaddr_storage *to, socklen_t to_length,
                   uint32_t teid);
/* Handover target: G-PDUs on `teid` (the DL forwarding TEID it offered) are the session's too and
 * reach the UE before the new path's, which wait until an End Marker comes on `teid` (TS 38.300
 * 9.2.3.3.1: in-order delivery) or gnb_up_end_forwarded. EEXIST (TEID in use, or one already). */
int gnb_up_expect_forwarded(gnb_up *g, uint32_t id, uint32_t teid);
/* Stops waiting for the forwarded End Marker (the source never sent one): the new path's follow. */
int gnb_up_end_forwarded(gnb_up *g, uint32_t id);
/* GNB_UP_SESSION_COUNTERS values, or ENOENT. */
int gnb_up_session_counters(gnb_up *g, uint32_t id, uint64_t *out);
void gnb_up_read_counters(gnb_up *g, uint64_t *out);

#endif
