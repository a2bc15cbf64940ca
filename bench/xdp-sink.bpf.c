/* The XDP benches' sink (bench/xdp-gen.c attaches it; bench/upf-xdp.ts): counts and drops every
 * frame in the receiving namespace. Native mode on a veth also gives that veth the NAPI that a frame
 * redirected into its peer needs. */
#include <linux/bpf.h>

#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} counter SEC(".maps");

SEC("xdp")
int sink(struct xdp_md *ctx) {
  (void)ctx;
  __u32 zero = 0;
  __u64 *n = bpf_map_lookup_elem(&counter, &zero);
  if (n != NULL) (*n)++;
  return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
