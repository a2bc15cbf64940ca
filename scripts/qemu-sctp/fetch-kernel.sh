#!/bin/sh
# Fetches Debian's cloud kernel (it has SCTP as a module) without installing it: apt-get download,
# dpkg-deb -x, depmod (the .deb ships no modules.dep). Installing it would rebuild the host's initrd.
# Usage: fetch-kernel.sh CACHE_DIR   -> CACHE_DIR/kernel/{vmlinuz,lib/modules/<kver>}
# See /work/shared/notes/qemu-kernel-sctp.md (sections 1 and 6) for the facts this relies on.
set -eu
CACHE=$1
OUT="$CACHE/kernel"
mkdir -p "$CACHE"
[ -f "$OUT/ready" ] && exit 0
command -v apt-get >/dev/null || { echo "fetch-kernel: needs apt-get (Debian)" >&2; exit 2; }
package() { apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }'; }
PKG=$(package)
if [ -z "$PKG" ]; then
  # A fresh container may have no package lists yet.
  apt-get update -qq
  PKG=$(package)
fi
[ -n "$PKG" ] || { echo "fetch-kernel: no linux-image-cloud-amd64 in the package lists" >&2; exit 2; }
WORK=$(mktemp -d "$CACHE/fetch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && apt-get download -qq "$PKG" 2>/dev/null && dpkg-deb -x "$PKG"_*.deb root)
KVER=$(ls "$WORK/root/lib/modules")
# kmod's depmod where installed, else busybox's (busybox-static is needed for the guest anyway).
if command -v depmod >/dev/null; then depmod -b "$WORK/root" "$KVER"; else busybox depmod -b "$WORK/root" "$KVER"; fi
find "$WORK/root/lib/modules/$KVER" -name 'sctp.ko*' | grep -q . || { echo "fetch-kernel: $PKG has no sctp.ko" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT/lib/modules"
cp "$WORK/root/boot/vmlinuz-$KVER" "$OUT/vmlinuz"
mv "$WORK/root/lib/modules/$KVER" "$OUT/lib/modules/$KVER"
echo "$PKG" > "$OUT/ready"
