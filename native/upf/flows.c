#include "flows.h"

#include <stdlib.h>
#include <string.h>

bool upf_flows_init(upf_flows *flows, uint32_t limit) {
  uint32_t size = 16;
  while (size < 2 * (uint64_t)limit && size < (1U << 30)) size <<= 1;
  flows->slots = calloc(size, sizeof *flows->slots);
  flows->used = calloc(size, 1);
  flows->order = calloc(size / 2, sizeof *flows->order);
  flows->mask = size - 1;
  flows->count = 0;
  flows->limit = limit < size / 2 ? limit : size / 2;
  if (flows->slots == NULL || flows->used == NULL || flows->order == NULL) {
    upf_flows_free(flows);
    return false;
  }
  return true;
}

void upf_flows_free(upf_flows *flows) {
  free(flows->slots);
  free(flows->used);
  free(flows->order);
  flows->slots = NULL;
  flows->used = NULL;
  flows->order = NULL;
}

/* FNV-1a over the key; keys are built zeroed, so padding never differs. */
static uint32_t hash_key(const upf_flow_key *key) {
  const uint8_t *p = (const uint8_t *)key;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < sizeof *key; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

bool upf_flows_add(upf_flows *flows, const upf_flow_key *key, uint64_t bytes) {
  uint32_t i = hash_key(key) & flows->mask;
  for (; flows->used[i]; i = (i + 1) & flows->mask) {
    upf_flow *flow = &flows->slots[i];
    if (memcmp(&flow->key, key, sizeof *key) == 0) {
      flow->packets++;
      flow->bytes += bytes;
      return true;
    }
  }
  if (flows->count >= flows->limit) return false;
  flows->used[i] = 1;
  flows->slots[i].key = *key;
  flows->slots[i].packets = 1;
  flows->slots[i].bytes = bytes;
  flows->order[flows->count++] = i;
  return true;
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

void upf_flows_drain(upf_flows *flows, uint8_t *out) {
  for (uint32_t n = 0; n < flows->count; n++) {
    uint32_t i = flows->order[n];
    const upf_flow *flow = &flows->slots[i];
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
    flows->used[i] = 0;
  }
  flows->count = 0;
}
