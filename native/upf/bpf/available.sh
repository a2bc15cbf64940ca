#!/bin/sh
# Prints 1 when the UPF's XDP datapath can be built here (binding.gyp): clang with the BPF target and
# libbpf's headers and library; 0 otherwise, and the build goes on without it (the TUN datapath only).
command -v clang >/dev/null 2>&1 || { echo 0; exit 0; }
[ -e /usr/include/bpf/libbpf.h ] || { echo 0; exit 0; }
clang -print-targets 2>/dev/null | grep -q '\bbpf\b' || { echo 0; exit 0; }
echo 'int main(void) { return 0; }' | cc -x c - -lbpf -o /dev/null >/dev/null 2>&1 || { echo 0; exit 0; }
echo 1
