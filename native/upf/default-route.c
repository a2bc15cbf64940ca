#include "default-route.h"

#include <stdio.h>
#include <string.h>

#define RTF_UP 0x0001
#define RTF_REJECT 0x0200

static bool ipv4_default(char *name, size_t size) {
  FILE *f = fopen("/proc/net/route", "r");
  if (f == NULL) return false;
  char line[256];
  bool found = false;
  unsigned long best = 0;
  /* Iface Destination Gateway Flags RefCnt Use Metric Mask ..., hexadecimal, after a header. */
  if (fgets(line, sizeof line, f) != NULL) {
    while (fgets(line, sizeof line, f) != NULL) {
      char iface[64];
      unsigned long destination, gateway, flags, refcnt, use, metric, mask;
      if (sscanf(line, "%63s %lx %lx %lx %lu %lu %lu %lx", iface, &destination, &gateway, &flags,
                 &refcnt, &use, &metric, &mask) != 8)
        continue;
      if (destination != 0 || mask != 0 || !(flags & RTF_UP) || (flags & RTF_REJECT)) continue;
      if (found && metric >= best) continue;
      found = true;
      best = metric;
      snprintf(name, size, "%s", iface);
    }
  }
  fclose(f);
  return found;
}

static bool ipv6_default(char *name, size_t size) {
  FILE *f = fopen("/proc/net/ipv6_route", "r");
  if (f == NULL) return false;
  char line[256];
  bool found = false;
  unsigned long best = 0;
  /* destination prefix-length source prefix-length next-hop metric refcnt use flags device */
  while (fgets(line, sizeof line, f) != NULL) {
    char destination[33], source[33], next_hop[33], iface[64];
    unsigned length, source_length;
    unsigned long metric, refcnt, use, flags;
    if (sscanf(line, "%32s %x %32s %x %32s %lx %lx %lx %lx %63s", destination, &length, source,
               &source_length, next_hop, &metric, &refcnt, &use, &flags, iface) != 10)
      continue;
    if (length != 0 || strspn(destination, "0") != 32 || !(flags & RTF_UP) ||
        (flags & RTF_REJECT) || strcmp(iface, "lo") == 0)
      continue;
    if (found && metric >= best) continue;
    found = true;
    best = metric;
    snprintf(name, size, "%s", iface);
  }
  fclose(f);
  return found;
}

bool upf_default_route_interface(char *name, size_t size) {
  return ipv4_default(name, size) || ipv6_default(name, size);
}
