# shellcheck shell=bash
# Shared definitions for the vm/ scripts. Sourced, never run.

PMEMZC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# One variable moves the whole build cache (kernel sources, builds, ccache,
# initramfs); nothing of it ever lives inside the repository.
PMEMZC_CACHE=${PMEMZC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmem-zc}
# The guest kernel: Debian's linux-source-6.12 (the default) or -6.1, each
# with its own series in mm-export-patch/<version>/. One knob: KERNEL= on
# make's command line, PMEMZC_KERNEL in the environment.
PMEMZC_KERNEL=${PMEMZC_KERNEL:-6.12}
PMEMZC_KERNELS="6.12 6.1"

say() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Short content hash of files and strings given on stdin.
content_key() { sha256sum | cut -c1-16; }

# The links to the current kernel build and initramfs of a flavour of the
# selected kernel version, and the build directory itself (bzImage, modules,
# .config).
kernel_link() { echo "$PMEMZC_CACHE/kernel-$PMEMZC_KERNEL-$1"; }
initramfs_link() { echo "$PMEMZC_CACHE/initramfs-$PMEMZC_KERNEL-$1.cpio"; }
kernel_dir() { readlink -f "$(kernel_link "$1")"; }

# Refuse a kernel version the project has no series for.
check_kernel_version() {
	case " $PMEMZC_KERNELS " in
	*" $PMEMZC_KERNEL "*) ;;
	*) die "unknown kernel '$PMEMZC_KERNEL' (KERNEL=6.12 or KERNEL=6.1)" ;;
	esac
}

# Root through sudo in a checkout that belongs to someone else would leave
# root-owned files there and in root's cache: refuse, saying what to do.
vm_refuse_foreign_root() {
	local owner
	[ "$(id -u)" -eq 0 ] && [ -n "${SUDO_UID:-}" ] || return 0
	owner=$(stat -c %u "$PMEMZC_TOP")
	[ "$owner" != 0 ] || return 0
	die "run this as $(id -nu "$owner" 2>/dev/null || echo "uid $owner"), not through sudo: the checkout is theirs and nothing here needs root but apt-get, which vm/install-deps.sh runs with sudo itself"
}

# test_files DIR PATTERN: files named PATTERN that a test's guests left in
# DIR or a folder right under it (a test that boots several guests side by
# side); deeper ones belong to a nested run of the runner
test_files() {
	find "$1" -mindepth 1 -maxdepth 2 -name "$2" 2>/dev/null | LC_ALL=C sort
}

# splat_lines DIR [ALLOW]: the lines of the guest logs of a test (serial
# logs and the dmesg each guest dumps after its job, see test_files) that
# are kernel splats (net-tests/splat-patterns), as "FILE: LINE"; lines also
# matching the extended regex ALLOW are left out. Logs are read as bytes
# (grep -a, C locale): a NUL or a bad UTF-8 byte must not hide a splat. A
# log that cannot be read is reported as a line of its own.
splat_lines() {
	local dir=$1 allow=${2:-} pats f rc
	pats=$(mktemp)
	grep -v -e '^#' -e '^$' "$PMEMZC_TOP/net-tests/splat-patterns" > "$pats"
	for f in $(test_files "$dir" '*.serial.log') $(test_files "$dir" '*.dmesg.log'); do
		[ -e "$f" ] || continue
		# grep's 1 (no splat) is the good case: not a failure under set -e
		rc=0
		LC_ALL=C grep -a -E -f "$pats" -- "$f" > "$pats.hits" 2> "$pats.err" || rc=$?
		if [ $rc -gt 1 ]; then
			echo "${f#"$dir"/}: cannot be scanned: $(head -1 "$pats.err")"
			continue
		fi
		if [ -n "$allow" ]; then
			# every hit allowed: grep -v selects nothing and says 1
			LC_ALL=C grep -a -v -E -- "$allow" "$pats.hits" > "$pats.kept" || :
			mv "$pats.kept" "$pats.hits"
		fi
		LC_ALL=C tr -c '[:print:]\t\n' '?' < "$pats.hits" | sed "s|^|${f#"$dir"/}: |"
	done
	rm -f "$pats" "$pats.hits" "$pats.err"
}

# kernel_paths FLAVOUR: set KSRC_TAR, Debian's source tarball of the
# selected kernel, and KSRC_DIR and KBUILD_DIR, the cache folders of
# the selected kernel's source tree (keyed by the tarball and the code its
# series changes; a commit message or the cover letter does not rebuild a
# kernel) and of FLAVOUR's build (keyed by those, the settings in vm/config/
# and vm/build-kernel.sh) for this checkout, and KPATCHES, the patches in
# order: the series of mm-export-patch/<version>/ named in KSERIES, each
# in its own order.
# The series of a version, applied in this order: the mm exports
# (mm-export-patch/<version>/ itself), mainline's fs-DAX busy-page fix
# backported (fsdax-busy/, stable-bound; on 6.1 with a 6.1-only first
# patch, the wake-up a direct I/O bio's release owes a waiting layout
# break), our fix of the XFS two-inode
# layout break that spins on a busy page (xfs-dax-wait/, for mainline
# first), the refusal of EXT4_IOC_MOVE_EXT with a DAX donor
# (ext4-move-ext-dax/, for mainline and stable), the other paths that
# dropped busy DAX entries and a device unbound under pages in flight
# (fsdax-holes/, for mainline and stable), on 6.12 the DAX splice_read
# series (dax-splice/, an RFC for mainline: sendfile(2) and splice(2) of
# DAX files by reference) and the lab's debugfs switches that turn the
# busy-page fix and the splice's mapping entries off (lab/, never sent
# anywhere). A version without a series' folder skips it.
KSERIES=". fsdax-busy xfs-dax-wait ext4-move-ext-dax fsdax-holes dax-splice lab"
kernel_paths() {
	local flavour=$1 cfgdir=$PMEMZC_TOP/vm/config p s srckey key
	check_kernel_version
	KPATCHES=()
	for s in $KSERIES; do
		while IFS= read -r -d '' p; do KPATCHES+=("$p"); done < <(
			find "$PMEMZC_TOP/mm-export-patch/$PMEMZC_KERNEL/$s" -maxdepth 1 -name '[0-9]*.patch' \
				! -name '*cover-letter*' -print0 2>/dev/null | sort -z)
	done
	KSRC_TAR=/usr/src/linux-source-$PMEMZC_KERNEL.tar.xz
	srckey=$( { echo "$(basename "$KSRC_TAR") $(stat -c %s "$KSRC_TAR" 2>/dev/null)"
		    for p in "${KPATCHES[@]}"; do sed -n '/^diff --git /,/^-- $/p' "$p" | sha256sum; done
		  } | content_key)
	# (comments in the config files do not key the build; "is not set"
	# lines do)
	key=$( { echo "$srckey"
		 grep -hE -e '^CONFIG_' -e '^# CONFIG_[A-Za-z0-9_]+ is not set$' \
			"$cfgdir/base.config" "$cfgdir/$flavour.config" || :
		 cat "$PMEMZC_TOP/vm/build-kernel.sh"; } | content_key)
	KSRC_DIR=$PMEMZC_CACHE/src/linux-$PMEMZC_KERNEL-$srckey
	KBUILD_DIR=$PMEMZC_CACHE/build/$PMEMZC_KERNEL-$flavour-$key
}
