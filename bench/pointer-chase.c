/* Memory latency as the XDP datapath meets it (docs/performance.md "User plane"): one dependent read
 * after another through a random cycle of 64-octet lines, for working sets from 128 KiB to 128 MiB.
 * A packet of another flow than the last reads its flow's entry the same way, at a hashed place.
 *
 *   cc -O2 -o .bench/pointer-chase bench/pointer-chase.c && taskset -c 1 .bench/pointer-chase
 *
 * Prints "<KiB>: <ns> ns per dependent read" per working set. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LINE 64
#define READS 4000000

/* This thread's CPU time: the time it waited for the CPU on a loaded machine is not the reads'. */
static uint64_t cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* xorshift64: a fixed sequence, so every run walks the same cycle. */
static uint64_t next_random(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

int main(void) {
  static const size_t kib[] = {128, 512, 1024, 2048, 3072, 4096, 8192, 32768, 131072};
  for (size_t s = 0; s < sizeof kib / sizeof kib[0]; s++) {
    size_t lines = kib[s] * 1024 / LINE;
    char *memory = aligned_alloc(4096, lines * LINE);
    size_t *order = malloc(lines * sizeof *order);
    if (memory == NULL || order == NULL) {
      fprintf(stderr, "pointer-chase: out of memory\n");
      return 1;
    }
    /* A random permutation (Fisher-Yates), linked into one cycle through every line. */
    uint64_t state = 88172645463325252u;
    for (size_t i = 0; i < lines; i++) order[i] = i;
    for (size_t i = lines - 1; i > 0; i--) {
      size_t j = (size_t)(next_random(&state) % (i + 1));
      size_t t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (size_t i = 0; i < lines; i++)
      *(void **)(memory + order[i] * LINE) = memory + order[(i + 1) % lines] * LINE;
    void *p = memory + order[0] * LINE;
    for (size_t i = 0; i < lines; i++) p = *(void **)p; /* touched once before timing */
    uint64_t started = cpu_ns();
    for (size_t i = 0; i < READS; i++) p = *(void **)p;
    double each = (double)(cpu_ns() - started) / READS;
    /* p printed so that the compiler keeps the reads. */
    printf("%zu KiB: %.1f ns per dependent read (%p)\n", kib[s], each, p);
    free(order);
    free(memory);
  }
  return 0;
}
