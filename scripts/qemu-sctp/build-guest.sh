#!/bin/sh
# Builds what every qemu SCTP guest shares, cached under CACHE_DIR (default .cache/qemu-sctp):
#   kernel/vmlinuz          Debian's cloud kernel (fetch-kernel.sh)
#   guest/base.cpio.gz      busybox, sctp.ko, virtio and traffic control modules (netem, prio, ingress,
#                           u32, mirred, ifb) with their dependencies, /init, qexit
#   guest/node-<ver>.img    ext4 image of this host's node binary, iproute2's ip and tc, and the
#                           libraries they link
# A test appends its own cpio (opt/pmn/guest.mjs and the addon) to base.cpio.gz: Linux unpacks
# concatenated archives. Usage: build-guest.sh [CACHE_DIR]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${1:-$HERE/../../.cache/qemu-sctp}
mkdir -p "$CACHE/guest"
# Test files run in parallel: one builds, the others wait for it and find the cache ready.
exec 9>"$CACHE/.lock"
flock 9
"$HERE/fetch-kernel.sh" "$CACHE"
MODDIR=$(echo "$CACHE"/kernel/lib/modules/*)
BUSYBOX=${BUSYBOX:-/bin/busybox}
OUT="$CACHE/guest"

# --- base initramfs (rebuilt when this script, /init or qexit.c change) ---
STAMP=$(cat "$0" "$HERE/init" "$HERE/qexit.c" | md5sum | cut -c1-12)
if [ ! -f "$OUT/base-$STAMP.cpio.gz" ]; then
  ROOT=$(mktemp -d "$CACHE/initrd.XXXXXX")
  trap 'rm -rf "$ROOT"' EXIT
  mkdir -p "$ROOT"/bin "$ROOT"/proc "$ROOT"/sys "$ROOT"/dev "$ROOT"/tmp "$ROOT"/mnt "$ROOT"/etc \
    "$ROOT"/lib/modules "$ROOT"/opt/pmn
  cp "$BUSYBOX" "$ROOT/bin/busybox"
  for a in $("$BUSYBOX" --list); do [ "$a" = busybox ] || ln -s busybox "$ROOT/bin/$a"; done
  ln -s bin "$ROOT/sbin"
  gcc -O2 -static -o "$ROOT/bin/qexit" "$HERE/qexit.c"
  # The module closure from modules.dep, dependencies first; soft pre-dependencies (libcrc32c ->
  # crc32c) are not in modules.dep, and aliases built into the kernel need no module.
  : > "$ROOT/etc/modules.order"
  module_path() {
    awk -F: -v n="$1" '{ f=$1; sub(/.*\//,"",f); sub(/\.ko(\..*)?$/,"",f); gsub(/-/,"_",f); m=n; gsub(/-/,"_",m); if (f==m) { print $1; exit } }' "$MODDIR/modules.dep"
  }
  resolve() {
    local rel d
    rel=$(module_path "$1")
    if [ -z "$rel" ]; then
      tr '\0' '\n' < "$MODDIR/modules.builtin.modinfo" | grep -q "\.alias=$1\$" && return 0
      echo "build-guest: module $1 not found" >&2
      return 1
    fi
    grep -qx "$rel" "$ROOT/etc/modules.order" && return 0
    for d in $(tr '\0' '\n' < "$MODDIR/$rel" | sed -n 's/^softdep=pre: *//p' | sed 's/ post:.*//'); do
      resolve "$d" || return 1
    done
    for d in $(awk -F: -v r="$rel" '$1==r { print $2 }' "$MODDIR/modules.dep"); do
      d=$(basename "$d")
      resolve "${d%%.ko*}" || return 1
    done
    grep -qx "$rel" "$ROOT/etc/modules.order" || echo "$rel" >> "$ROOT/etc/modules.order"
  }
  # The traffic control modules let a test impair the guest's link with tc netem: this host's kernel
  # has no sch_netem.
  for m in sctp virtio_pci virtio_net virtio_blk sch_netem sch_prio sch_ingress cls_u32 act_mirred ifb; do resolve "$m" || exit 1; done
  while read -r rel; do
    mkdir -p "$ROOT/lib/modules/$(dirname "$rel")"
    cp "$MODDIR/$rel" "$ROOT/lib/modules/$rel"
  done < "$ROOT/etc/modules.order"
  cp "$HERE/init" "$ROOT/init"
  chmod +x "$ROOT/init"
  (cd "$ROOT" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1) > "$OUT/base-$STAMP.cpio.gz.tmp"
  mv "$OUT/base-$STAMP.cpio.gz.tmp" "$OUT/base-$STAMP.cpio.gz"
  rm -rf "$ROOT"
  trap - EXIT
fi
ln -sf "base-$STAMP.cpio.gz" "$OUT/base.cpio.gz"

# --- node image (one per node binary) ---
NODE=$(readlink -f "$(command -v node)")
NODE_STAMP=$( (node --version; stat -c %s "$NODE" "$(command -v tc)"; cat "$0") | md5sum | cut -c1-12)
if [ ! -f "$OUT/node-$NODE_STAMP.img" ]; then
  R=$(mktemp -d "$CACHE/nodeimg.XXXXXX")
  trap 'rm -rf "$R"' EXIT
  mkdir -p "$R/usr/bin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/opt/pmn"
  cp "$NODE" "$R/usr/bin/node"
  mkdir -p "$R/usr/sbin"
  IP=$(command -v ip)
  TC=$(command -v tc)
  cp "$IP" "$TC" "$R/usr/sbin/"
  for lib in $(ldd "$NODE" "$IP" "$TC" | awk '/=>/ { print $3 } /^[ \t]+\// { print $1 }' | sort -u); do
    mkdir -p "$R$(dirname "$lib")"
    cp -L "$lib" "$R$lib"
  done
  SIZE_MB=$(( $(du -sm "$R" | cut -f1) + 32 ))
  mke2fs -q -t ext4 -L nodeimg -d "$R" "$OUT/node-$NODE_STAMP.img.tmp" "${SIZE_MB}M" >/dev/null
  mv "$OUT/node-$NODE_STAMP.img.tmp" "$OUT/node-$NODE_STAMP.img"
  rm -rf "$R"
  trap - EXIT
fi
ln -sf "node-$NODE_STAMP.img" "$OUT/node.img"
ln -sf ../kernel/vmlinuz "$OUT/vmlinuz"
