/* A bounded hash map from 64-bit keys to 32-bit values: open addressing with linear probing and
 * backward-shift deletion (no tombstones, so lookups never degrade after many removals). */
#ifndef PMN_UPF_MAP_H
#define PMN_UPF_MAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  uint64_t *keys;
  uint32_t *values;
  uint8_t *used;
  uint32_t mask;
  uint32_t count;
  uint32_t limit; /* at most this many entries (the table has at least twice as many slots) */
} upf_map;

bool upf_map_init(upf_map *map, uint32_t limit);
void upf_map_free(upf_map *map);
bool upf_map_get(const upf_map *map, uint64_t key, uint32_t *value);
/* 0, or EEXIST (the key is there) or ENOSPC (limit reached). */
int upf_map_put(upf_map *map, uint64_t key, uint32_t value);
bool upf_map_remove(upf_map *map, uint64_t key);
uint32_t upf_hash64(uint64_t key);

#endif
