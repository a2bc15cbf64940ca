#include "map.h"

#include <errno.h>
#include <stdlib.h>

/* The finaliser of MurmurHash3: TEIDs and addresses are often sequential, this spreads them. */
uint32_t upf_hash64(uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ULL;
  key ^= key >> 33;
  return (uint32_t)key;
}

bool upf_map_init(upf_map *map, uint32_t limit) {
  uint32_t size = 16;
  while (size < 2 * (uint64_t)limit && size < (1U << 30)) size <<= 1;
  map->keys = calloc(size, sizeof *map->keys);
  map->values = calloc(size, sizeof *map->values);
  map->used = calloc(size, 1);
  map->mask = size - 1;
  map->count = 0;
  map->limit = limit < size / 2 ? limit : size / 2;
  if (map->keys == NULL || map->values == NULL || map->used == NULL) {
    upf_map_free(map);
    return false;
  }
  return true;
}

void upf_map_free(upf_map *map) {
  free(map->keys);
  free(map->values);
  free(map->used);
  map->keys = NULL;
  map->values = NULL;
  map->used = NULL;
}

bool upf_map_get(const upf_map *map, uint64_t key, uint32_t *value) {
  for (uint32_t i = upf_hash64(key) & map->mask;; i = (i + 1) & map->mask) {
    if (!map->used[i]) return false;
    if (map->keys[i] == key) {
      *value = map->values[i];
      return true;
    }
  }
}

int upf_map_put(upf_map *map, uint64_t key, uint32_t value) {
  uint32_t i = upf_hash64(key) & map->mask;
  for (; map->used[i]; i = (i + 1) & map->mask)
    if (map->keys[i] == key) return EEXIST;
  if (map->count >= map->limit) return ENOSPC;
  map->used[i] = 1;
  map->keys[i] = key;
  map->values[i] = value;
  map->count++;
  return 0;
}

bool upf_map_remove(upf_map *map, uint64_t key) {
  uint32_t i = upf_hash64(key) & map->mask;
  for (;; i = (i + 1) & map->mask) {
    if (!map->used[i]) return false;
    if (map->keys[i] == key) break;
  }
  /* Backward shift: move later entries of the probe run into the hole when their home slot is not
   * cyclically between the hole and their position. */
  for (uint32_t j = i;;) {
    j = (j + 1) & map->mask;
    if (!map->used[j]) break;
    uint32_t home = upf_hash64(map->keys[j]) & map->mask;
    bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    map->keys[i] = map->keys[j];
    map->values[i] = map->values[j];
    i = j;
  }
  map->used[i] = 0;
  map->count--;
  return true;
}
