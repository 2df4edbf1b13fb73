#!/usr/bin/env bash
# The build cache ($PMEMZC_CACHE) outside the repository.
#
#   vm/cache.sh paths FLAVOUR   this checkout's source tree and build of
#                               FLAVOUR (test|bench) of the selected kernel
#                               (PMEMZC_KERNEL), one a line
#   vm/cache.sh prune           keep per kernel version the two most recently
#                               used source trees, and per version and flavour
#                               the two most recently used kernel builds and
#                               initramfs images
#   vm/cache.sh drop            remove this checkout's entries (its source
#                               trees, both versions' and flavours' builds and
#                               initramfs, the host test builds); other
#                               checkouts' entries, ccache and busybox stay
set -euo pipefail
. "$(dirname "$0")/common.sh"

# keep_newest N PATH...: remove all but the N most recently modified PATHs,
# never the target of a kernel-* or initramfs-* link. A folder without the
# .pmemzc-done stamp of a finished build counts as unfinished: it goes when
# a finished one is newer (a failed attempt), and never counts among the N.
keep_newest() {
	local n=$1 p cur=() kept=0 newest_done=
	shift
	for p in "$PMEMZC_CACHE"/kernel-* "$PMEMZC_CACHE"/initramfs-*.cpio; do
		[ -L "$p" ] && cur+=("$(readlink -f "$p")")
	done
	[ $# -gt 0 ] && [ -e "$1" ] || return 0
	while IFS= read -r p; do
		[[ " ${cur[*]} " == *" $(readlink -f "$p") "* ]] && { kept=$((kept + 1)); continue; }
		if [ -d "$p" ] && [ ! -e "$p/.pmemzc-done" ]; then
			[ -n "$newest_done" ] || continue
		else
			newest_done=$p
			kept=$((kept + 1))
			[ $kept -le "$n" ] && continue
		fi
		say "cache: removing $p"
		rm -rf -- "$p"
	done < <(ls -1dt -- "$@")
}

# Entries named as before the cache was keyed by kernel version (one 6.1
# kernel: src/linux-KEY, build/FLAVOUR-KEY, initramfs/FLAVOUR-*.cpio and the
# kernel-FLAVOUR, initramfs-FLAVOUR.cpio links) go, unless a link of the
# current layout still leads to one (or to the source tree of one).
drop_old_layout() {
	local p t l used=()
	for l in kernel-test kernel-bench initramfs-test.cpio initramfs-bench.cpio; do
		[ ! -L "$PMEMZC_CACHE/$l" ] || rm -f "$PMEMZC_CACHE/$l"
	done
	for p in "$PMEMZC_CACHE"/kernel-* "$PMEMZC_CACHE"/initramfs-*.cpio \
		 "$PMEMZC_CACHE"/src/* "$PMEMZC_CACHE"/build/*; do
		[ -L "$p" ] || continue
		t=$(readlink -f "$p")
		used+=("$t")
		[ ! -L "$t/source" ] || used+=("$(readlink -f "$t/source")")
	done
	for p in "$PMEMZC_CACHE"/src/linux-* "$PMEMZC_CACHE"/build/test-* \
		 "$PMEMZC_CACHE"/build/bench-* "$PMEMZC_CACHE"/initramfs/test-*.cpio \
		 "$PMEMZC_CACHE"/initramfs/bench-*.cpio; do
		[ -e "$p" ] && [ ! -L "$p" ] || continue
		[[ $(basename "$p") =~ ^(linux-[0-9a-f]{16}|(test|bench)-.*)$ ]] || continue
		[[ " ${used[*]} " == *" $p "* ]] && continue
		say "cache: removing $p (the layout before kernel versions)"
		rm -rf -- "$p"
	done
}

case ${1:-} in
paths)
	kernel_paths "${2:?flavour}"
	echo "$KSRC_DIR"
	echo "$KBUILD_DIR"
	;;
prune)
	drop_old_layout
	for v in $PMEMZC_KERNELS; do
		keep_newest 2 "$PMEMZC_CACHE"/src/linux-"$v"-*
		for f in test bench; do
			keep_newest 2 "$PMEMZC_CACHE"/build/"$v-$f"-*
			keep_newest 2 "$PMEMZC_CACHE"/initramfs/"$v-$f"-*.cpio
		done
	done
	;;
drop)
	for PMEMZC_KERNEL in $PMEMZC_KERNELS; do
		for f in test bench; do
			kernel_paths "$f"
			for p in "$KSRC_DIR" "$KBUILD_DIR" "$PMEMZC_CACHE/initramfs/$(basename "$KBUILD_DIR")-"*.cpio; do
				[ -e "$p" ] || continue
				say "cache: removing $p"
				rm -rf -- "$p"
			done
			for l in "$(kernel_link "$f")" "$(initramfs_link "$f")"; do
				[ -L "$l" ] && [ ! -e "$l" ] && rm -f "$l"
			done
		done
	done
	rm -rf "$PMEMZC_CACHE/host-tests"
	;;
*)
	sed -n '2,14s/^# \{0,1\}//p' "$0"
	exit 2
	;;
esac
