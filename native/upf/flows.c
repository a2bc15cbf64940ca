#include "flows.h"

#include <stdlib.h>
#include <string.h>

bool upf_flows_init(upf_flows *flows, uint32_t limit) {
  memset(flows, 0, sizeof *flows);
  uint32_t size = 16;
  while (size < 2 * (uint64_t)limit && size < (1U << 30)) size <<= 1;
  flows->limit = limit < size / 2 ? limit : size / 2;
  flows->mask = size - 1;
  flows->pool = calloc(flows->limit, sizeof *flows->pool);
  flows->free_list = calloc(flows->limit, sizeof *flows->free_list);
  flows->slots = calloc(size, sizeof *flows->slots);
  flows->live = calloc(flows->limit, sizeof *flows->live);
  flows->ended = calloc(flows->limit, sizeof *flows->ended);
  if (flows->pool == NULL || flows->free_list == NULL || flows->slots == NULL ||
      flows->live == NULL || flows->ended == NULL) {
    upf_flows_free(flows);
    return false;
  }
  for (uint32_t i = 0; i < flows->limit; i++) flows->free_list[i] = flows->limit - 1 - i;
  flows->free_count = flows->limit;
  return true;
}

void upf_flows_free(upf_flows *flows) {
  free(flows->pool);
  free(flows->free_list);
  free(flows->slots);
  free(flows->live);
  free(flows->ended);
  memset(flows, 0, sizeof *flows);
}

/* FNV-1a over the key; keys are built zeroed, so padding never differs. */
static uint32_t hash_key(const upf_flow_key *key) {
  const uint8_t *p = (const uint8_t *)key;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < sizeof *key; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

upf_flow *upf_flows_open(upf_flows *flows, const upf_flow_key *key, uint32_t *session_head) {
  uint32_t hash = hash_key(key);
  uint32_t i = hash & flows->mask;
  for (; flows->slots[i] != 0; i = (i + 1) & flows->mask) {
    upf_flow *flow = &flows->pool[flows->slots[i] - 1];
    if (flow->hash == hash && memcmp(&flow->key, key, sizeof *key) == 0) return flow;
  }
  if (flows->free_count == 0) return NULL;
  uint32_t index = flows->free_list[--flows->free_count];
  upf_flow *flow = &flows->pool[index];
  memset(flow, 0, sizeof *flow);
  flow->key = *key;
  flow->hash = hash;
  flow->fresh = true;
  flow->live_position = flows->live_count;
  flows->live[flows->live_count++] = index;
  flow->session_prev = UPF_NO_FLOW;
  flow->session_next = *session_head;
  flow->session_head = session_head;
  if (*session_head != UPF_NO_FLOW) flows->pool[*session_head].session_prev = index;
  *session_head = index;
  flows->slots[i] = index + 1;
  return flow;
}

void upf_flows_count(upf_flow *flow, uint64_t packets, uint64_t bytes) {
  if (packets == 0 && bytes == 0) return;
  flow->packets += packets;
  flow->bytes += bytes;
  flow->dirty = true;
}

bool upf_flows_add(upf_flows *flows, const upf_flow_key *key, uint64_t packets, uint64_t bytes,
                   uint32_t *session_head) {
  upf_flow *flow = upf_flows_open(flows, key, session_head);
  if (flow == NULL) return false;
  upf_flows_count(flow, packets, bytes);
  return true;
}

/* Backward-shift deletion from the hash table: the entries after the hole that may move into it do,
 * so that lookups never need tombstones. */
static void unhash(upf_flows *flows, uint32_t index) {
  uint32_t i = flows->pool[index].hash & flows->mask;
  while (flows->slots[i] != index + 1) i = (i + 1) & flows->mask;
  for (uint32_t j = (i + 1) & flows->mask; flows->slots[j] != 0; j = (j + 1) & flows->mask) {
    uint32_t home = flows->pool[flows->slots[j] - 1].hash & flows->mask;
    /* The entry at j stays when its home lies cyclically in (i, j]. */
    bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    flows->slots[i] = flows->slots[j];
    i = j;
  }
  flows->slots[i] = 0;
}

static void stamp(upf_flow *flow, double now_ms, double previous_ms) {
  if (!flow->dirty) return;
  if (flow->fresh) flow->start_ms = previous_ms;
  flow->end_ms = now_ms;
  flow->dirty = false;
  flow->fresh = false;
}

/* Moves an open flow to the ended FIFO: no longer found by its key (the next packets open a new
 * flow), off its session's list. The owner's on_end first, which may count last packets: the flow is
 * stamped after it. */
static void end_flow(upf_flows *flows, uint32_t index, double now_ms, double previous_ms) {
  upf_flow *flow = &flows->pool[index];
  if (flows->on_end != NULL) flows->on_end(flows->on_end_context, flow);
  stamp(flow, now_ms, previous_ms);
  unhash(flows, index);
  uint32_t last = flows->live[--flows->live_count];
  flows->live[flow->live_position] = last;
  flows->pool[last].live_position = flow->live_position;
  if (flow->session_prev != UPF_NO_FLOW)
    flows->pool[flow->session_prev].session_next = flow->session_next;
  else
    *flow->session_head = flow->session_next;
  if (flow->session_next != UPF_NO_FLOW)
    flows->pool[flow->session_next].session_prev = flow->session_prev;
  flows->ended[(flows->ended_head + flows->ended_count) % flows->limit] = index;
  flows->ended_count++;
  flows->ended_total++;
}

void upf_flows_tick(upf_flows *flows, double now_ms, double previous_ms, double idle_ms,
                    double active_ms) {
  /* Backwards, since ending a flow moves the last one into its place. */
  for (uint32_t n = flows->live_count; n-- > 0;) {
    uint32_t index = flows->live[n];
    upf_flow *flow = &flows->pool[index];
    stamp(flow, now_ms, previous_ms);
    if (now_ms - flow->end_ms < idle_ms && now_ms - flow->start_ms < active_ms) continue;
    end_flow(flows, index, now_ms, previous_ms);
  }
}

void upf_flows_end_session(upf_flows *flows, uint32_t *session_head, double now_ms,
                           double previous_ms) {
  while (*session_head != UPF_NO_FLOW) {
    end_flow(flows, *session_head, now_ms, previous_ms);
  }
}

static void le16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static void le32(uint8_t *p, uint32_t v) {
  le16(p, (uint16_t)v);
  le16(p + 2, (uint16_t)(v >> 16));
}

static void le64(uint8_t *p, uint64_t v) {
  le32(p, (uint32_t)v);
  le32(p + 4, (uint32_t)(v >> 32));
}

static void lef64(uint8_t *p, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  le64(p, bits);
}

uint32_t upf_flows_take(upf_flows *flows, uint8_t *out, uint32_t max) {
  uint32_t n = 0;
  for (; n < max && flows->ended_count > 0; n++) {
    uint32_t index = flows->ended[flows->ended_head];
    flows->ended_head = (flows->ended_head + 1) % flows->limit;
    flows->ended_count--;
    const upf_flow *flow = &flows->pool[index];
    uint8_t *r = out + (size_t)n * UPF_FLOW_RECORD;
    memset(r, 0, UPF_FLOW_RECORD);
    le32(r, flow->key.session);
    r[4] = flow->key.family;
    r[5] = flow->key.protocol;
    r[6] = flow->key.direction;
    r[7] = flow->key.action;
    le16(r + 8, flow->key.source_port);
    le16(r + 10, flow->key.destination_port);
    memcpy(r + 12, flow->key.source, 16);
    memcpy(r + 28, flow->key.destination, 16);
    le64(r + 48, flow->packets);
    le64(r + 56, flow->bytes);
    lef64(r + 64, flow->start_ms);
    lef64(r + 72, flow->end_ms);
    flows->free_list[flows->free_count++] = index;
  }
  return n;
}
