#!/bin/sh
# Compiles the UPF's XDP program (binding.gyp): compile.sh <source> <object>. The multiarch include
# directory carries <asm/types.h> for the BPF target.
set -e
clang -O2 -g -Wall -Werror -target bpf -I"/usr/include/$(cc -print-multiarch)" -c "$1" -o "$2"
