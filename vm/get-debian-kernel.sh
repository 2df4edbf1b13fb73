#!/usr/bin/env bash
# Make Debian's own kernel of a version the guests' "debian" flavour, never
# installing anything on this machine: linux-image-KREL (the signed package
# Debian 12 users boot) unpacked by vm/get-deb-file.sh, its headers by
# vm/get-kernel-headers.sh, KREL the newest amd64 kernel of the version with
# headers in the apt lists.
#
#   vm/get-debian-kernel.sh 6.1|6.12
#
# The flavour's kernel directory is the unpacked headers tree
# (ROOT/usr/src/linux-headers-KREL: what out-of-tree modules build against,
# as DKMS would), and gets what the lab looks for in a kernel build beside
# it: arch/x86/boot/bzImage (the package's vmlinuz), modroot/lib/modules/
# KREL (the modules the guests need, MODULES below, with their
# dependencies, out of the package's own tree; depmod'ed) and
# modroot/etc/pmemzc-modules (what vm/guest/init loads at boot: the
# virtio and 9p drivers, ext4 and nbd, which the lab's kernels have built
# in). Linked as
# kernel-VERSION-debian in the cache.
set -euo pipefail
. "$(dirname "$0")/common.sh"

PMEMZC_KERNEL=${1:-$PMEMZC_KERNEL}
check_kernel_version

# loaded at boot: the console, disks, network and shares of every guest
BOOT_MODULES=(virtio_pci virtio_blk virtio_net 9pnet_virtio 9p ext4 nbd)
# loaded by the tests that use them
# (overlay: vm/guest/hostroot.sh's root)
MODULES=("${BOOT_MODULES[@]}" nfit nd_pmem dax_pmem ext4 xfs nbd overlay)

root=$("$PMEMZC_TOP/vm/get-kernel-headers.sh" "$PMEMZC_KERNEL")
kdir=$(echo "$root"/usr/src/linux-headers-*-amd64)
[ -f "$kdir/Makefile" ] || die "no kernel tree in $root"
krel=${kdir##*/linux-headers-}
link=$(kernel_link debian)
# (the stamp holds the module list: a new one redoes the guests' tree)
if [ "$(cat "$kdir/.pmemzc-done" 2>/dev/null)" = "${MODULES[*]}" ]; then
	ln -sfn "$kdir" "$link"
	say "Debian's $PMEMZC_KERNEL kernel up to date: $krel"
	exit 0
fi

img=$("$PMEMZC_TOP/vm/get-deb-file.sh" "linux-image-$krel")
[ -f "$img/boot/vmlinuz-$krel" ] || die "linux-image-$krel has no boot/vmlinuz-$krel"
[ -d "$img/lib/modules/$krel/kernel" ] || die "linux-image-$krel has no lib/modules/$krel"
# the package ships no modules.dep (its postinst runs depmod): made here,
# in the cache's copy of the package
[ -e "$img/lib/modules/$krel/modules.dep" ] || depmod -b "$img" "$krel" ||
	die "depmod of linux-image-$krel"

mkdir -p "$kdir/arch/x86/boot"
cp "$img/boot/vmlinuz-$krel" "$kdir/arch/x86/boot/bzImage"
rm -rf "$kdir/modroot"
mods=$kdir/modroot/lib/modules/$krel
mkdir -p "$mods" "$kdir/modroot/etc"
cp "$img/lib/modules/$krel"/modules.{order,builtin,builtin.modinfo} "$mods/"
for m in "${MODULES[@]}"; do
	# built in: nothing to copy (modprobe knows it from modules.builtin)
	grep -q "/$m\.ko$" "$mods/modules.builtin" && continue
	deps=$(modprobe -d "$img" -S "$krel" --show-depends "$m") ||
		die "linux-image-$krel: no module $m"
	echo "$deps" | awk '$1 == "insmod" {print $2}' | while read -r f; do
		rel=${f#"$img/lib/modules/$krel/"}
		mkdir -p "$mods/$(dirname "$rel")"
		# uncompressed: the initramfs is, and the guests' kmod would
		# hand the kernel the .xz first
		case $rel in
		*.xz) xz -dc "$f" > "$mods/${rel%.xz}" ;;
		*) cp "$f" "$mods/$rel" ;;
		esac
	done
done
depmod -b "$kdir/modroot" "$krel" || die "depmod of the guests' modules"
echo "${BOOT_MODULES[*]}" > "$kdir/modroot/etc/pmemzc-modules"
echo "${MODULES[*]}" > "$kdir/.pmemzc-done"
ln -sfn "$kdir" "$link"
say "Debian's $PMEMZC_KERNEL kernel: $krel ($(du -sh "$kdir/modroot" | cut -f1) of modules for the guests)"
