/* Downlink buffering (downlink-buffer.h). */
#include "downlink-buffer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool upf_buffer_init(upf_buffer *b) {
  memset(b, 0, sizeof *b);
  b->data = malloc((size_t)UPF_BUFFER_CELLS * UPF_BUFFER_CELL);
  b->next_cell = calloc(UPF_BUFFER_CELLS, sizeof *b->next_cell);
  b->next_packet = calloc(UPF_BUFFER_CELLS, sizeof *b->next_packet);
  b->length = calloc(UPF_BUFFER_CELLS, sizeof *b->length);
  b->stamp = calloc(UPF_BUFFER_CELLS, sizeof *b->stamp);
  if (b->data == NULL || b->next_cell == NULL || b->next_packet == NULL || b->length == NULL ||
      b->stamp == NULL) {
    upf_buffer_free(b);
    return false;
  }
  for (uint32_t i = 0; i < UPF_BUFFER_CELLS; i++)
    b->next_cell[i] = i + 1 < UPF_BUFFER_CELLS ? i + 1 : UPF_BUFFER_NONE;
  b->free_head = 0;
  b->free_cells = UPF_BUFFER_CELLS;
  return true;
}

void upf_buffer_free(upf_buffer *b) {
  free(b->data);
  free(b->next_cell);
  free(b->next_packet);
  free(b->length);
  free(b->stamp);
  memset(b, 0, sizeof *b);
}

void upf_buffer_queue_init(upf_buffer_queue *q) {
  memset(q, 0, sizeof *q);
  q->head = q->tail = UPF_BUFFER_NONE;
}

upf_buffer_result upf_buffer_push(upf_buffer *b, upf_buffer_queue *q, const uint8_t *packet,
                                  size_t length) {
  if (q->packets >= UPF_BUFFER_SESSION_PACKETS || length == 0 ||
      q->bytes + length > UPF_BUFFER_SESSION_BYTES)
    return UPF_BUFFER_SESSION_FULL;
  uint32_t cells = (uint32_t)((length + UPF_BUFFER_CELL - 1) / UPF_BUFFER_CELL);
  if (cells > b->free_cells) return UPF_BUFFER_POOL_FULL;
  uint32_t first = b->free_head;
  uint32_t cell = first;
  for (size_t copied = 0; copied < length;) {
    size_t n = length - copied < UPF_BUFFER_CELL ? length - copied : UPF_BUFFER_CELL;
    memcpy(b->data + (size_t)cell * UPF_BUFFER_CELL, packet + copied, n);
    copied += n;
    if (copied < length) cell = b->next_cell[cell];
  }
  /* cell is the packet's last: the free list goes on after it. */
  b->free_head = b->next_cell[cell];
  b->next_cell[cell] = UPF_BUFFER_NONE;
  b->free_cells -= cells;
  b->next_packet[first] = UPF_BUFFER_NONE;
  b->length[first] = (uint32_t)length;
  b->stamp[first] = NAN;
  if (q->tail == UPF_BUFFER_NONE)
    q->head = first;
  else
    b->next_packet[q->tail] = first;
  q->tail = first;
  q->packets++;
  q->bytes += (uint32_t)length;
  b->packets++;
  if (!q->linked) {
    q->linked = true;
    q->prev = NULL;
    q->next = b->queues;
    if (b->queues != NULL) b->queues->prev = q;
    b->queues = q;
  }
  return UPF_BUFFERED;
}

bool upf_buffer_peek(const upf_buffer *b, const upf_buffer_queue *q, size_t *length, double *stamp) {
  if (q->head == UPF_BUFFER_NONE) return false;
  *length = b->length[q->head];
  *stamp = b->stamp[q->head];
  return true;
}

size_t upf_buffer_pop(upf_buffer *b, upf_buffer_queue *q, uint8_t *out) {
  uint32_t first = q->head;
  if (first == UPF_BUFFER_NONE) return 0;
  size_t length = b->length[first];
  uint32_t cell = first;
  for (size_t copied = 0;;) {
    size_t n = length - copied < UPF_BUFFER_CELL ? length - copied : UPF_BUFFER_CELL;
    memcpy(out + copied, b->data + (size_t)cell * UPF_BUFFER_CELL, n);
    copied += n;
    uint32_t next = b->next_cell[cell];
    b->next_cell[cell] = b->free_head;
    b->free_head = cell;
    b->free_cells++;
    if (copied >= length) break;
    cell = next;
  }
  q->head = b->next_packet[first];
  if (q->head == UPF_BUFFER_NONE) q->tail = UPF_BUFFER_NONE;
  q->packets--;
  q->bytes -= (uint32_t)length;
  b->packets--;
  if (q->packets == 0 && q->linked) {
    if (q->prev != NULL)
      q->prev->next = q->next;
    else
      b->queues = q->next;
    if (q->next != NULL) q->next->prev = q->prev;
    q->linked = false;
    q->prev = q->next = NULL;
  }
  return length;
}

void upf_buffer_stamp(upf_buffer *b, upf_buffer_queue *q, double stamp) {
  for (uint32_t p = q->head; p != UPF_BUFFER_NONE; p = b->next_packet[p])
    if (isnan(b->stamp[p])) b->stamp[p] = stamp;
}
