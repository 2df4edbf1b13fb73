#!/usr/bin/env bash
# The .debs that guest A of 45-deb-install installs before the project's
# packages, in the place of `apt install linux-headers-$(uname -r)` (the
# guest has no mirror): Debian's linux-headers-KREL of the debian
# flavour's kernel, a stand-in linux-image-KREL package (on a user's machine
# the running kernel's package is installed, and 6.12's headers depend on
# it; the guest's modules are the real package's, vm/guest/hostroot.sh),
# and every package apt would install with them that this machine lacks
# (the guest's root is this machine's: apt-get -s here), and the guest's
# udev (vm/get-guest-udev.sh). Fetched with
# apt-get download, never installed here. Prints the folder they are in
# (kept in the cache, redone when the kernel or the list changes).
#
#   vm/get-install-debs.sh 6.1|6.12
set -euo pipefail
. "$(dirname "$0")/common.sh"

PMEMZC_KERNEL=${1:-$PMEMZC_KERNEL}
check_kernel_version
kdir=$(readlink -f "$(kernel_link debian)")
[ -e "$kdir/.pmemzc-done" ] || die "no debian kernel: make kernel FLAVOUR=debian KERNEL=$PMEMZC_KERNEL"
krel=${kdir##*/linux-headers-}
out=$kdir/install-debs
# and the guest's udev, where this machine has none (cached once fetched)
"$PMEMZC_TOP/vm/get-guest-udev.sh" > /dev/null ||
	say "warning: 45-deb-install's guest will have no udev (above)"
[ ! -e "$out/.pmemzc-done" ] || { echo "$out"; exit 0; }

rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp"
hdr=$("$PMEMZC_TOP/vm/get-deb-file.sh" --deb "linux-headers-$krel")
cp "$hdr" "$out.tmp/"
ver=$(dpkg-deb -f "$hdr" Version)
standin=$(mktemp -d)
trap 'rm -rf "$standin"' EXIT
mkdir -p "$standin/DEBIAN"
cat > "$standin/DEBIAN/control" <<EOF
Package: linux-image-$krel
Version: $ver
Architecture: amd64
Maintainer: pmem-zc lab <pmem-zc@localhost>
Description: lab stand-in for the running kernel's installed package
 The pmem-zc lab boots linux-image-$krel unpacked, not installed; its
 modules are shared with the guest read-only (vm/guest/hostroot.sh).
EOF
dpkg-deb -b "$standin" "$out.tmp/linux-image-${krel}_${ver}_amd64.deb" > /dev/null
# what apt would add: the headers' -common, kbuild, compiler, ...
# (local .debs need a path with a slash)
pkgs=$(apt-get -s -o Debug::NoLocking=1 --no-install-recommends install "$out.tmp"/*.deb |
	awk '$1 == "Inst" {print $2}')
for p in $pkgs; do
	case $p in "linux-image-$krel"|"linux-headers-$krel") continue ;; esac
	cp "$("$PMEMZC_TOP/vm/get-deb-file.sh" --deb "$p")" "$out.tmp/"
done
touch "$out.tmp/.pmemzc-done"
mv "$out.tmp" "$out"
say "Debian's $PMEMZC_KERNEL headers for the install guest: $(cd "$out" && ls | tr '\n' ' ')"
echo "$out"
