/* Downlink buffering for sessions whose user plane is not active (TS 23.501 5.8.3.2: the UPF buffers
 * downlink data of a PDU session without an N3 tunnel, while the device is paged and its Service
 * Request brings the tunnel back; TS 23.502 4.2.3.3). Packets are copied into a pool of fixed cells
 * allocated once (no allocation per packet); each session keeps its own FIFO. Bounds (docs/upf.md
 * "Downlink buffering"): what starts a connection or answers a ping, not a stream:
 * - per session UPF_BUFFER_SESSION_PACKETS packets and UPF_BUFFER_SESSION_BYTES octets (a TCP SYN and
 *   a server's initial window of 10 segments, TS 23.501 leaves the amount to the UPF);
 * - for all sessions UPF_BUFFER_CELLS cells of UPF_BUFFER_CELL octets (4 MiB: 128 sessions' worth of
 *   full buffers, so that a burst to many idle devices cannot take more than that).
 * A packet is held until the session's downlink is set (flushed in order), its release, or its
 * expiry (the caller's ticks: buffered packets are stamped with the tick before they arrived). */
#ifndef PMN_UPF_DOWNLINK_BUFFER_H
#define PMN_UPF_DOWNLINK_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UPF_BUFFER_SESSION_PACKETS 16
#define UPF_BUFFER_SESSION_BYTES 32768
#define UPF_BUFFER_CELL 2048
#define UPF_BUFFER_CELLS 2048

/* No cell, no packet. */
#define UPF_BUFFER_NONE UINT32_MAX

/* One session's FIFO, embedded in the session. Queues with packets are linked together so that
 * expiry visits only them. */
typedef struct upf_buffer_queue {
  uint32_t head; /* the oldest packet's first cell */
  uint32_t tail;
  uint32_t packets;
  uint32_t bytes;
  struct upf_buffer_queue *prev;
  struct upf_buffer_queue *next;
  bool linked;
} upf_buffer_queue;

typedef struct {
  uint8_t *data;          /* UPF_BUFFER_CELLS x UPF_BUFFER_CELL */
  uint32_t *next_cell;    /* the packet's next cell, or the free list */
  uint32_t *next_packet;  /* by first cell: the queue's next packet */
  uint32_t *length;       /* by first cell: the packet's octets */
  double *stamp;          /* by first cell: the tick before it arrived, NaN until a tick */
  uint32_t free_head;
  uint32_t free_cells;
  uint32_t packets; /* held now, all sessions */
  upf_buffer_queue *queues;
} upf_buffer;

typedef enum { UPF_BUFFERED, UPF_BUFFER_SESSION_FULL, UPF_BUFFER_POOL_FULL } upf_buffer_result;

bool upf_buffer_init(upf_buffer *b);
void upf_buffer_free(upf_buffer *b);
void upf_buffer_queue_init(upf_buffer_queue *q);
/* Copies a packet to the queue's end, or says which bound refused it. */
upf_buffer_result upf_buffer_push(upf_buffer *b, upf_buffer_queue *q, const uint8_t *packet,
                                  size_t length);
/* The oldest packet's length and stamp, false when the queue is empty. */
bool upf_buffer_peek(const upf_buffer *b, const upf_buffer_queue *q, size_t *length, double *stamp);
/* Copies the oldest packet into out (at least its length, from peek) and frees it; its length. */
size_t upf_buffer_pop(upf_buffer *b, upf_buffer_queue *q, uint8_t *out);
/* Gives the packets not stamped yet the stamp (a tick's previous time). */
void upf_buffer_stamp(upf_buffer *b, upf_buffer_queue *q, double stamp);

#endif
