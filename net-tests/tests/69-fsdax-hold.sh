# fs-DAX must not free a block while a pipe, a socket or a bio still holds
# its page (issue 22; mainline's busy-page fix, backported in
# mm-export-patch/<version>/fsdax-busy/). A process maps a 4 MiB file on a
# 32 MiB DAX filesystem, takes references to its first 1 MiB through one
# PATH (net-tests/tools/dax_hold.c), unmaps it and closes it:
#   vmsplice  vmsplice() into a pipe
#   zerocopy  send(MSG_ZEROCOPY) to a loopback receiver that does not read
#   uring     io_uring's IORING_OP_SEND_ZC from the mapping, the same way
#   odwrite   an O_DIRECT write of the mapping to /dev/nbd0, whose
#             nbd-server (on loopback) is stopped: the bio keeps the pages
#             pinned; the disk then has to get the first file's bytes
#   odread    an O_DIRECT read of /dev/nbd0 into a writable mapping: when
#             the server goes on, the device writes into the pinned pages
#   splice    no mapping: splice() of the file into a pipe, which holds
#             the file's own pages with the DAX splice series (issue 23,
#             mm-export-patch/6.12/dax-splice/, 6.12 only)
#   resplice  splice, the file spliced through the pipe and read back
#             first: the held references are the series' fast path's,
#             taken on the entries the first splice inserted
#   sendfile  no mapping: sendfile() of the file to the loopback receiver
#             that does not read: skbs hold the pages (issue 23, 6.12 only)
# Then one layout OP: truncate to 0, punch, zero, collapse or insert a
# range (xfs_io; zero and insert free nothing, they only have to wait),
# unlink of the only name (eviction), swapext (XFS_IOC_SWAPEXT, as
# xfs_fsr: the held file's extents swapped with a donor's of the same
# size, then the donor, which has the held blocks, unlinked;
# mm-export-patch/*/xfs-dax-wait/0002), umount (eviction of
# every inode;
# when it does not wait, mount again and truncate the file, whose new inode
# has no entries to wait for), a truncate killed while it waits
# (sigtruncate); on XFS with reflink (FS xfsr) the held file as the
# destination of a reflink or a dedupe of another file, whose inode number
# is lower (the held file is the second inode of
# xfs_mmaplock_two_inodes_and_break_dax_layout(), which spun on it before
# mm-export-patch/<version>/xfs-dax-wait/), or a reflink killed while it
# waits (sigreflink: the held file keeps its bytes); on ext4i, moveext:
# EXT4_IOC_MOVE_EXT with a non-DAX original O and the held DAX file as
# the donor (the ioctl asks only for write access to both: any owner of
# two files), then O truncated: before ext4-move-ext-dax/0001 the donor's
# held blocks went to O (1,044,448 of 1,048,576 bytes vmspliced were not
# the held file's), and the folios ext4 put into the DAX donor's mapping
# made its eviction BUG; fixed, the ioctl is refused (EOPNOTSUPP),
# nothing waits, O's truncate frees O's own blocks; swapboot (ext4):
# EXT4_IOC_SWAP_BOOT gives the held file's blocks to the boot loader
# inode, a second swap gives them on to an empty file, which is unlinked
# (before fsdax-holes/0001 the first swap truncated the DAX entries with
# their pages busy, no layout break); on xfsrm (XFS with rmapbt), repair:
# xfs_io's online repair of the held file's data fork mapping
# (XFS_SCRUB_TYPE_BMBTD; 6.12 only), then a truncate (before fsdax-holes/0003 the
# repair's setup invalidated the mapping, busy entries included, after
# breaking only leases, so the truncate found nothing to wait for); and (splice and
# sendfile) cowwrite: the held file shares its blocks with a reflink copy
# made before the hold, a write to its first MiB moves it to new blocks
# (copy on write) and the copy is unlinked, which frees the old ones: a
# reflinked file is never spliced by reference (the series' XFS patch),
# so nothing waits and the bytes delivered are the copy's (through a
# vmsplice()d mapping of the reflinked file, which no series here closes
# yet, the CoW write drops the held page's entry and 1,044,456 bytes
# delivered were another file's: FSDAX_KNOWN=1 FSDAX_MATRIX=full adds that
# case). The filesystem is
# refilled by another file, the holder released. DEV prd (pages=devmap)
# or ndpmem (upstream's nd_pmem, an fsdax namespace made with ndctl), FS
# ext4, xfs (-o dax, no reflink), xfsr (with reflink) or xfsm (XFS -o
# dax=inode: the held file DAX by its directory's flag, a swapext donor
# made after the flag is cleared, so not DAX: the two-inode lock of a DAX
# and a non-DAX file), xfsrm (XFS with the reverse-mapping btree, which
# online repair needs) or ext4i (ext4 -o dax=inode, the held file DAX by
# its directory's flag, moveext's O made after the flag is cleared).
#
# Each case runs on one kernel with the fix on or off, switched by the
# lab's debugfs knob (mm-export-patch/<version>/lab/):
#   fixed (Y)   the operation is still blocked after 1 s, asleep in its
#               layout break (eviction in dax_break_layout_final, the
#               others in ext4_wait_dax_page or xfs_wait_dax_page; sampled
#               for up to 10 s more), it completes once the holder let go
#               and has done what it does (truncated, punched, zeroed,
#               collapsed, inserted, unlinked, unmounted, the file the
#               reflink's source or its extents shared: xfs_io's exit
#               status does not say), every byte queued arrives and is the
#               first file's, the refill (written until ENOSPC) got none
#               of the held blocks and is intact after the release,
#               dax_hold ends as it does unfixed (exit 0), and the kernel
#               logs no warning; a killed operation ends with the signal,
#               before the release, and the file is as it was after it
#   unfixed (N) the operation does not wait (and does what it does), the
#               refill takes held blocks,
#               and the leak shows: delivered bytes that are not the first
#               file's, or (odread) the refill's bytes changed by the
#               device; and the WARN_ON_ONCE of dax_disassociate_entry()
#               fires. That this is seen is what shows the test can fail.
# For splice and sendfile, N is the series with its mapping entries off
# (the lab's /sys/kernel/debug/dax_splice_entries N: the pages are in the
# pipe with no entry the layout break could find; nothing to disassociate
# either, so no WARN), and a third way:
#   copy (C)    fs.dax_splice_read 0: the splice copies, nothing waits,
#               every byte delivered is the first file's (what 6.12 does
#               without the series)
# clear_warn_once is written before each case. The figures of both ways
# are printed for the report. Also: io_uring refuses to register a DAX
# mapping as a fixed buffer (a long-term pin), and registers anonymous
# memory.
#
# FSDAX_MATRIX=check (make check): every PATH x truncate both ways, every OP
# with vmsplice (and zerocopy for the four that free blocks) on ext4 over
# prd, and a few cases on XFS and nd_pmem. FSDAX_MATRIX=full (make soak,
# net-tests/soak/60-fsdax-matrix.sh): every PATH x OP x FIX on every DEV and
# FS, less the unfixed zero and insert (they free nothing to leak).
# FSDAX_MATRIX=subset (make check's 6.1 run, on the bench kernel): where
# 6.1's code differs from 6.12's, each once: every PATH x truncate (6.1
# releases a bio's pages without the wake-up: fsdax-busy/0001), eviction
# by unlink (of a bio's pages too) and umount, a killed truncate, XFS,
# reflink, swapext and nd_pmem, and one unfixed case that shows the test
# can fail.
# splice and sendfile: on 6.12, every PATH x OP x FIX of the full matrix
# (and one copied case per DEV and FS), and 16 cases of the check list
# (4 of them resplice: the series' fast path, 1 swapext); swapext (xfs-dax-wait/0002):
# every PATH on XFS and vmsplice on xfsm in the full matrix, vmsplice on xfs
# and xfsm (and splice on 6.12) in the check list and the subset.
TEST_TIMEOUT=900
FSDAX_MATRIX=${FSDAX_MATRIX:-check}
# the guest's bound (the soak's matrix sets its own)
FSDAX_GUEST_SECS=${FSDAX_GUEST_SECS:-800}
# the unfixed cases' WARN in dax_disassociate_entry() is expected (the job
# checks per case that it fires there and nowhere else); any other is not
TEST_SPLAT_ALLOW='cut here|WARNING: CPU: [0-9]+ PID: [0-9]+ at [^ ]*fs/dax\.c:[0-9]+ dax_disassociate_entry\+|Call Trace:'

# fsdax_cases: the cases of $FSDAX_MATRIX, "DEV FS PATH OP FIX" a line,
# each DEV's together
fsdax_cases() {
	local dev fs path op fix splice=
	# the DAX splice series is 6.12's
	[ "${PMEMZC_KERNEL:-6.12}" = 6.1 ] || splice="splice sendfile"
	if [ "$FSDAX_MATRIX" = full ]; then
		for dev in prd ndpmem; do
			for fs in ext4 xfs; do
				[ -n "$splice" ] && echo "$dev $fs sendfile truncate C"
				for fix in Y N; do
					for path in vmsplice zerocopy uring odwrite odread $splice; do
						for op in truncate punch zero collapse insert unlink umount; do
							[ $fix = N ] && { [ $op = zero ] || [ $op = insert ]; } && continue
							echo "$dev $fs $path $op $fix"
						done
					done
				done
				for path in vmsplice $splice; do
					echo "$dev $fs $path sigtruncate Y"
				done
				if [ $fs = xfs ]; then
					for path in vmsplice zerocopy uring odwrite odread $splice; do
						echo "$dev xfs $path swapext Y"
					done
					echo "$dev xfsm vmsplice swapext Y"
				fi
			done
			for fix in Y N; do
				for path in vmsplice zerocopy uring odwrite odread $splice; do
					for op in reflink dedupe; do
						echo "$dev xfsr $path $op $fix"
					done
				done
			done
			echo "$dev xfsr vmsplice sigreflink Y"
			for path in $splice; do echo "$dev xfsr $path cowwrite Y"; done
			# known to leak, not in any matrix (issue 45's deferred
			# release closes it): FSDAX_KNOWN=1 adds it
			[ -z "${FSDAX_KNOWN:-}" ] || echo "$dev xfsr vmsplice cowwrite Y"
			for path in vmsplice zerocopy $splice; do
				echo "$dev ext4i $path moveext Y"
				echo "$dev ext4 $path swapboot Y"
				[ -z "$splice" ] || echo "$dev xfsrm $path repair Y"
			done
		done
		return
	fi
	if [ "$FSDAX_MATRIX" = subset ]; then
		for path in vmsplice zerocopy uring odwrite odread; do
			echo "prd ext4 $path truncate Y"
		done
		echo "prd ext4 vmsplice truncate N"
		echo "prd ext4 vmsplice unlink Y"
		echo "prd ext4 odwrite unlink Y"
		echo "prd ext4 zerocopy umount Y"
		echo "prd ext4 vmsplice sigtruncate Y"
		echo "prd xfs vmsplice truncate Y"
		echo "prd xfs vmsplice swapext Y"
		echo "prd xfsm vmsplice swapext Y"
		echo "prd xfsr vmsplice reflink Y"
		echo "prd ext4i vmsplice moveext Y"
		echo "prd ext4 vmsplice swapboot Y"
		echo "ndpmem ext4 vmsplice truncate Y"
		return
	fi
	for fix in Y N; do
		for path in vmsplice zerocopy; do
			for op in truncate punch unlink umount collapse; do
				[ $path = zerocopy ] && [ $op = collapse ] && continue
				echo "prd ext4 $path $op $fix"
			done
		done
		for path in uring odwrite odread; do
			echo "prd ext4 $path truncate $fix"
		done
	done
	# eviction of a file whose pages a bio held: waits uninterruptibly,
	# so a release that wakes nobody (6.1 without fsdax-bio-wake/) hangs
	# it for good
	echo "prd ext4 odwrite unlink Y"
	echo "prd ext4 vmsplice zero Y"
	echo "prd ext4 vmsplice insert Y"
	echo "prd ext4 vmsplice sigtruncate Y"
	echo "prd xfs vmsplice truncate Y"
	echo "prd xfs vmsplice truncate N"
	# XFS_IOC_SWAPEXT broke no DAX layout before xfs-dax-wait/0002
	echo "prd xfs vmsplice swapext Y"
	# a DAX file and a non-DAX donor (xfs-dax-wait/0002's ||)
	echo "prd xfsm vmsplice swapext Y"
	[ -z "$splice" ] || echo "prd xfs splice swapext Y"
	echo "prd xfs zerocopy unlink Y"
	echo "prd xfsr vmsplice reflink Y"
	echo "prd xfsr vmsplice reflink N"
	echo "prd xfsr vmsplice dedupe Y"
	echo "prd xfsr vmsplice sigreflink Y"
	# a DAX donor of EXT4_IOC_MOVE_EXT (ext4-move-ext-dax/0001)
	echo "prd ext4i vmsplice moveext Y"
	[ -z "$splice" ] || echo "prd ext4i splice moveext Y"
	# EXT4_IOC_SWAP_BOOT and XFS's online repair (fsdax-holes/0001, 0003)
	echo "prd ext4 vmsplice swapboot Y"
	# (6.1's XFS repairs no data fork mapping)
	[ -z "$splice" ] || printf '%s\n' "prd xfsrm vmsplice repair Y" "prd xfsrm splice repair Y"
	if [ -n "$splice" ]; then
		# each way, the two paths; eviction; XFS's reflink (the rest
		# of the layout operations are the full matrix's)
		for fix in Y N; do
			echo "prd ext4 splice truncate $fix"
			echo "prd ext4 sendfile truncate $fix"
		done
		echo "prd ext4 sendfile truncate C"
		echo "prd ext4 sendfile sigtruncate Y"
		echo "prd ext4 splice unlink Y"
		echo "prd ext4 resplice truncate Y"
		echo "prd ext4 resplice unlink Y"
		echo "prd xfs resplice punch Y"
		echo "prd ext4 sendfile umount Y"
		echo "prd xfsr sendfile reflink Y"
		echo "prd xfsr sendfile cowwrite Y"
	fi
	# (nd_pmem last: prd cannot be loaded again once it has the range)
	echo "ndpmem ext4 vmsplice truncate Y"
	echo "ndpmem ext4 vmsplice truncate N"
	echo "ndpmem ext4 zerocopy umount Y"
	[ -z "$splice" ] || printf '%s\n' "ndpmem ext4 sendfile truncate Y" "ndpmem ext4 resplice truncate Y"
}

test_run() {
	# FSDAX_ONLY: an extended regex that picks cases by their line (to
	# run one, e.g. FSDAX_ONLY='xfsr vmsplice reflink Y')
	fsdax_cases | grep -E -- "${FSDAX_ONLY:-.}" > "$T/cases.in" ||
		{ echo "not ok - no case matches FSDAX_ONLY='$FSDAX_ONLY'"; return 1; }
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
# a dax_hold that died must not kill the job at "echo go"
trap '' PIPE
KNOB=/sys/kernel/debug/fsdax_busy_fix
[ -e $KNOB ] || fail "no $KNOB: this kernel was built without mm-export-patch/*/lab/"
SKNOB=/sys/kernel/debug/dax_splice_entries SCTL=/proc/sys/fs/dax_splice_read
if grep -qE ' (re)?(splice|sendfile) ' /work/cases.in; then
	[ -e $SKNOB ] && [ -e $SCTL ] ||
		fail "no $SKNOB or $SCTL: this kernel was built without mm-export-patch/6.12/dax-splice/"
fi
HOLD=/tmp/dax_hold EMX=/top/net-tests/tools/bin/ext4_move_ext
cp /top/net-tests/tools/bin/dax_hold $HOLD && chmod 0755 $HOLD || fail "dax_hold"
mkdir -p /mnt
: > /work/cases

# The stalled disk of odwrite and odread: /dev/nbd0 from an nbd-server on
# loopback exporting 4 MiB of zeros (tmpfs); killall -STOP holds every
# request it has not answered. Small TCP buffers, so that a stalled write
# has most of its bytes still to send (dax_hold sets its own sockets').
echo '4096 16384 65536' > /proc/sys/net/ipv4/tcp_wmem
echo '4096 16384 65536' > /proc/sys/net/ipv4/tcp_rmem
dd if=/dev/zero of=/tmp/nbd.img bs=1M count=4 2> /dev/null
nbd_serve /tmp/nbd.img || fail "nbd-server"
# no request timeout: a request waits for as long as the server is stopped
nbd-client -N disk 127.0.0.1 /dev/nbd0 > /dev/null || fail "nbd-client"
# the first open after the connection scans for partitions, which reads
# the disk: done now, not while the server is stopped
/usr/bin/dd if=/dev/nbd0 of=/dev/null bs=4096 count=1 status=none || fail "read nbd0"

# fill: another file takes every free block (ends at ENOSPC); says
# whether it wrote anything. Bounded well below the hung-task timeout: a
# waiting unlink sits in D state meanwhile.
fill() {
	# syncfs(2) of /mnt alone: a global sync would wait for the stopped
	# nbd disk of the O_DIRECT cases
	sync -f /mnt
	timeout 60 /tmp/randfill $((1 << 40)) > /mnt/fill 2> /tmp/fill.err
	sync -f /mnt
	# it wrote, and stopped because the filesystem was full
	[ -s /mnt/fill ] && grep -q 'No space left' /tmp/fill.err && echo yes || echo no
}

# blocks FILE [LAST]: FILE's physical blocks (of logical blocks 0..LAST),
# one "start end" line an extent
blocks() {
	filefrag -v "$1" | awk -v last="${2:--1}" '
	$1 ~ /^[0-9]+:$/ {
		split($2 $3, l, /\.+:?/); split($4 $5, p, /\.+:?/)
		if (last >= 0 && l[1] + 0 > last) next
		e = p[2] + 0
		if (last >= 0 && l[2] + 0 > last) e -= l[2] - last
		print p[1] + 0, e
	}'
}

# overlap A B: how many blocks the extent lists A and B share
overlap() {
	awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
	{ for (i = 1; i <= n; i++) { lo = $1 > s[i] ? $1 : s[i]; hi = $2 < e[i] ? $2 : e[i]; if (hi >= lo) c += hi - lo + 1 } }
	END { print c + 0 }' "$1" "$2"
}

# use_dev prd|ndpmem: /dev/pmem0 from prd, or from nd_pmem (prd unloaded
# first: both would claim the NVDIMM's range), an fsdax namespace with its
# memmap on the device; each filesystem is made 32 MiB on it
cur_dev=
use_dev() {
	[ "$1" = "$cur_dev" ] && return
	case $1 in
	prd)
		$INSMOD $PRD_KO map=32M@4G pages=devmap || fail "insmod prd" ;;
	ndpmem)
		rmmod prd || fail "unload prd"
		modprobe nd_pmem && modprobe nfit || fail "modprobe nd_pmem"
		wait_for 30 test -e /sys/bus/nd/devices/namespace0.0 || fail "no namespace0.0"
		ndctl create-namespace -f -e namespace0.0 -m fsdax > /tmp/ndctl.out 2>&1 ||
			fail "ndctl: $(cat /tmp/ndctl.out)"
		wait_for 30 test -b /dev/pmem0 || fail "no /dev/pmem0 from nd_pmem" ;;
	esac
	cur_dev=$1
}

# mkfs_mount FS: a 32 MiB FS on /dev/pmem0, mounted -o dax on /mnt (XFS
# below its 300 MB minimum the way fstests makes it); xfsm: -o dax=inode,
# /mnt's DAX flag set, so that the files made in it are DAX
mkfs_mount() {
	case $1 in
	ext4|ext4i) mkfs.ext4 -q -F -b 4096 /dev/pmem0 32M ;;
	xfs|xfsr|xfsm|xfsrm) TEST_DIR=/mnt TEST_DEV=/dev/pmem0 QA_CHECK_FS=1 \
		mkfs.xfs -q -f -m reflink=$([ $1 = xfsr ] && echo 1 || echo 0),rmapbt=$([ $1 = xfsrm ] && echo 1 || echo 0) \
			-d size=32m /dev/pmem0 ;;
	esac || return 1
	if [ $1 = xfsm ] || [ $1 = ext4i ]; then
		mount -o dax=inode /dev/pmem0 /mnt && xfs_io -c 'chattr +x' /mnt
	else
		mount -o dax /dev/pmem0 /mnt
	fi
}

# io_uring: a fixed buffer is a FOLL_LONGTERM pin, which fs-DAX refuses
use_dev prd
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt && randfill $((1 << 20)) > /mnt/r ||
	fail "ext4 for uring-reg"
echo "dax $($HOLD uring-reg /mnt/r 1M 2>&1)" > /work/uring-reg
echo "anon $($HOLD uring-reg - 1M 2>&1)" >> /work/uring-reg
umount /mnt

# one_case DEV FS PATH OP FIX: one line "DEV FS PATH OP FIX key=value..."
# in /work/cases (the kernel log of the case is what follows its marker)
one_case() {
	dev=$1 fs=$2 path=$3 op=$4 fix=$5 case_name="$*"
	use_dev $dev
	echo 1 > /sys/kernel/debug/clear_warn_once
	echo Y > $KNOB
	[ -e $SKNOB ] && echo Y > $SKNOB
	[ -e $SCTL ] && echo 1 > $SCTL
	case $path:$fix in
	splice:N|resplice:N|sendfile:N) echo N > $SKNOB ;;
	*:C) echo 0 > $SCTL ;;
	*:N) echo N > $KNOB ;;
	esac
	mark="fsdax-hold: case $dev $fs $path $op $fix"
	echo "$mark" > /dev/kmsg
	mkfs_mount $fs || fail "$case_name: $fs"
	# a remap's source: made first, so that its inode number is the lower
	# one; a dedupe's has the same bytes as the held file
	ino=-
	[ $fs = xfsr ] && : > /mnt/src
	randfill $((4 << 20)) > /mnt/f && sync || fail "$case_name: test file"
	gsum=-
	if [ $op = swapext ]; then
		# xfsm: the donor made without the DAX flag, checked
		if [ $fs = xfsm ]; then
			xfs_io -c 'chattr -x' /mnt && : > /mnt/g &&
				xfs_io -c 'lsattr' /mnt/f | grep -q '^[^ ]*x' &&
				! xfs_io -c 'lsattr' /mnt/g | grep -q '^[^ ]*x' ||
				fail "$case_name: a DAX file and a non-DAX donor"
		fi
		randfill $((4 << 20)) > /mnt/g && sync && gsum=$(md5sum < /mnt/g) ||
			fail "$case_name: donor file"
	fi
	if [ $op = moveext ]; then
		# O: not DAX (made once the directory's flag is cleared)
		xfs_io -c 'chattr -x' /mnt && randfill $((4 << 20)) > /mnt/o && sync &&
			xfs_io -c 'lsattr' /mnt/f | grep -q '^[^ ]*x' &&
			! xfs_io -c 'lsattr' /mnt/o | grep -q '^[^ ]*x' ||
			fail "$case_name: a DAX file and a non-DAX original"
	fi
	if [ $op = cowwrite ]; then
		: > /mnt/g && xfs_io -c 'reflink /mnt/f' /mnt/g > /dev/null && sync &&
			filefrag -v /mnt/f | grep -q shared || fail "$case_name: reflink copy"
	fi
	if [ $fs = xfsr ]; then
		if [ $op = dedupe ]; then
			cat /mnt/f > /mnt/src
		else
			randfill $((4 << 20)) > /mnt/src
		fi || fail "$case_name: source file"
		sync
		[ "$(stat -c %i /mnt/src)" -lt "$(stat -c %i /mnt/f)" ] && ino=lower || ino=higher
	fi
	fsum=$(md5sum < /mnt/f)
	blocks /mnt/f 255 > /tmp/held.blocks
	[ -s /tmp/held.blocks ] || fail "$case_name: no blocks of /mnt/f: $(filefrag -v /mnt/f)"
	rm -f /tmp/go /tmp/got /tmp/hold.out /tmp/op.rc /tmp/op.pid /tmp/fill.blocks
	mkfifo /tmp/go
	stalled=no dev_arg=
	case $path in
	od*) killall -STOP nbd-server && stalled=yes dev_arg=/dev/nbd0 ||
		fail "$case_name: stop nbd-server" ;;
	esac
	# dax_hold waits for a line on the fifo (fd 4 here, closed in every
	# other child: the fifo's end is what would release it)
	# shellcheck disable=SC2086
	$HOLD $path /mnt/f 1M /tmp/got $dev_arg < /tmp/go > /tmp/hold.out 2>&1 & h=$!
	exec 4> /tmp/go
	wait_for 60 grep -q '^held ' /tmp/hold.out || fail "$case_name: no hold: $(cat /tmp/hold.out)"
	held=$(sed -n 's/^held //p' /tmp/hold.out)
	# the operation leaves its pid in /tmp/op.pid and its exit status in
	# /tmp/op.rc when it returns (kill -0 would see an unreaped child as
	# still running)
	case $op in
	truncate|sigtruncate) set -- truncate -s 0 /mnt/f ;;
	reflink|sigreflink) set -- xfs_io -c 'reflink /mnt/src' /mnt/f ;;
	dedupe) set -- xfs_io -c 'dedupe /mnt/src 0 0 4m' /mnt/f ;;
	punch) set -- xfs_io -c 'fpunch 0 4m' /mnt/f ;;
	zero) set -- xfs_io -c 'fzero 0 4m' /mnt/f ;;
	collapse) set -- xfs_io -c 'fcollapse 0 1m' /mnt/f ;;
	insert) set -- xfs_io -c 'finsert 0 1m' /mnt/f ;;
	unlink) set -- rm /mnt/f ;;
	# (xfs_io's pid in /tmp/op.pid: the one that waits)
	swapext) set -- sh -c "xfs_io -c 'swapext /mnt/g' /mnt/f > /dev/null &
			       echo \$! > /tmp/op.pid; wait \$! && rm /mnt/g" ;;
	cowwrite) set -- sh -c "xfs_io -c 'pwrite -S 0x55 0 1m' /mnt/f > /dev/null && rm /mnt/g" ;;
	# O's first 1024 blocks exchanged with the held file's, then O's
	# truncated (its exit status the ioctl's)
	# (the first swap's or the repair's pid in /tmp/op.pid: the one that
	# waits)
	swapboot) set -- sh -c "$EMX swap-boot /mnt/f > /tmp/sb.out & echo \$! > /tmp/op.pid; wait \$! &&
				: > /mnt/g && $EMX swap-boot /mnt/g >> /tmp/sb.out && rm /mnt/g" ;;
	repair) set -- sh -c "xfs_io -x -c 'repair bmapbtd' /mnt/f > /tmp/rp.out 2>&1 & echo \$! > /tmp/op.pid; wait \$!;
			      truncate -s 0 /mnt/f" ;;
	moveext) set -- sh -c "$EMX /mnt/o /mnt/f 1024 > /tmp/mx.out; rc=\$?; truncate -s 0 /mnt/o; exit \$rc" ;;
	umount) set -- umount /mnt ;;
	esac
	(sh -c 'echo $$ > /tmp/op.pid; exec "$@"' op "$@" 4>&-; echo $? > /tmp/op.rc) 4>&- &
	if [ $fix = Y ] && [ $op != moveext ] && [ $op != cowwrite ]; then
		sleep 1
	else
		# unfixed, copied or refused, nothing waits: bounded, for a
		# slow guest (a cowwrite, copied, once took over 1 s)
		wait_for 30 test -e /tmp/op.rc
	fi
	blocked=yes wchan=-
	[ -e /tmp/op.rc ] && blocked=no
	if [ $blocked = yes ]; then
		# where it sleeps: a layout break's wait (a slow guest may not
		# be there yet: up to 10 s), read once when it is, or when the
		# 10 s are out (the host's check names what it was)
		opid=$(cat /tmp/op.pid)
		wait_for 10 grep -qE 'wait_dax_page$|^dax_break_layout' /proc/"$opid"/wchan > /dev/null
		wchan=$(cat /proc/"$opid"/wchan 2> /dev/null)
	fi
	size=- intact=- sigended=-
	case $op in
	sig*)
		# the wait ends with the signal and frees nothing (TERM: a
		# background job of a script ignores SIGINT); it has to end
		# before the release, or the release would end it
		kill -TERM "$(cat /tmp/op.pid)"
		wait_for 30 test -e /tmp/op.rc && sigended=yes || sigended=no ;;
	esac
	filled=skip
	if [ $op = umount ] && [ $blocked = no ]; then
		# unmounted at once: the file's next inode has no entries to
		# wait for, its truncate frees the blocks
		mount -o dax /dev/pmem0 /mnt && truncate -s 0 /mnt/f 4>&- ||
			fail "$case_name: remount"
	fi
	# What the operation freed, another file takes. Not while an unmount
	# waits: it has freed nothing, /mnt is no longer its mount, and a
	# sync would wait for its s_umount.
	fillsum=-
	if [ $op != umount ] || [ $blocked = no ]; then
		filled=$(fill 4>&-)
		blocks /mnt/fill > /tmp/fill.blocks
		fillsum=$(md5sum < /mnt/fill)
	fi
	shared=-
	[ -e /tmp/fill.blocks ] && shared=$(overlap /tmp/held.blocks /tmp/fill.blocks)
	# still waiting when released: the wait did not end on its own
	case $op in sig*) ;; *) [ $blocked = yes ] && [ -e /tmp/op.rc ] && blocked=ended ;; esac
	[ $stalled = yes ] && killall -CONT nbd-server
	echo go >&4
	exec 4>&-
	wait_for 60 grep -q '^delivered ' /tmp/hold.out ||
		{ kill -9 $h; fail "$case_name: dax_hold did not deliver: $(tail -n 1 /tmp/hold.out)"; }
	wait $h
	holdrc=$?
	wait_for 60 test -e /tmp/op.rc || fail "$case_name: $op still blocked after the release"
	wait
	oprc=$(cat /tmp/op.rc)
	# what the operation did, once it returned (xfs_io's exit status
	# does not say whether fzero, reflink or dedupe failed): post=ok or
	# what is wrong
	post=ok
	fsize=$(stat -c %s /mnt/f 2> /dev/null)
	case $op in
	truncate) [ "$fsize" = 0 ] || post=size-$fsize ;;
	punch) [ -z "$(blocks /mnt/f)" ] || post=blocks-left ;;
	zero) [ "$(md5sum < /mnt/f)" = "$(head -c $((4 << 20)) /dev/zero | md5sum)" ] || post=not-zero ;;
	collapse) [ "$fsize" = $((3 << 20)) ] || post=size-$fsize ;;
	cowwrite) [ ! -e /mnt/g ] && [ "$(head -c $((1 << 20)) /mnt/f | md5sum)" = "$(head -c $((1 << 20)) /dev/zero | tr '\0' U | md5sum)" ] ||
		post=not-written ;;
	insert) [ "$fsize" = $((5 << 20)) ] || post=size-$fsize ;;
	unlink) [ ! -e /mnt/f ] || post=still-there ;;
	swapext) [ ! -e /mnt/g ] && [ "$(md5sum < /mnt/f)" = "$gsum" ] || post=not-swapped ;;
	# both swaps done: the held file has the boot loader's (no) blocks
	swapboot) [ "$(cat /tmp/sb.out | tr '\n' ' ')" = "swapped swapped " ] && [ ! -e /mnt/g ] &&
		  [ "$fsize" = 0 ] || post="not-swapped-$(tr '\n ' '__' < /tmp/sb.out)-$fsize" ;;
	# the repair ran (xfs_io: nothing to repair), the file truncated
	repair) [ "$(cat /tmp/rp.out)" = "Metadata did not need repair or optimization." ] && [ "$fsize" = 0 ] ||
		post="repair-$(head -c 60 /tmp/rp.out | tr '\n ' '__')-$fsize" ;;
	# refused, the held file as it was, O truncated
	moveext) [ "$(cat /tmp/mx.out)" = "refused: Operation not supported" ] || post="moved-$(sed 's/[^0-9]//g' /tmp/mx.out)"
		 [ "$(md5sum < /mnt/f)" = "$fsum" ] || post=$post-changed
		 [ "$(stat -c %s /mnt/o)" = 0 ] || post=$post-o-size ;;
	# (unfixed, mounted again above)
	umount) [ $blocked = no ] || ! grep -q " /mnt " /proc/mounts || post=still-mounted ;;
	reflink) [ "$(md5sum < /mnt/f)" = "$(md5sum < /mnt/src)" ] || post=not-the-source ;;
	# (odread: the device wrote into the held pages, so the file's bytes
	# may no longer be the source's, and FIDEDUPERANGE shares nothing then)
	dedupe) if cmp -s /mnt/f /mnt/src; then
			filefrag -v /mnt/f | grep -q shared || post=not-shared
		else
			filefrag -v /mnt/f | grep -q shared && post=shared-but-differs
		fi ;;
	# killed: the file as it was, after the release too
	sig*) size=$fsize
	      [ "$(md5sum < /mnt/f)" = "$fsum" ] && intact=yes || intact=no ;;
	esac
	# the refill as it was before the release (odread: the device wrote
	# into the held pages then)
	fillchanged=-
	[ "$fillsum" != - ] && { [ "$(md5sum < /mnt/fill)" = "$fillsum" ] && fillchanged=no || fillchanged=yes; }
	# "delivered BYTES DIFFER": DIFFER of them are not what the file held
	# when the references were taken
	delivered=$(sed -n 's/^delivered \([0-9]*\) .*$/\1/p' /tmp/hold.out)
	differ=$(sed -n 's/^delivered [0-9]* \([0-9-]*\)$/\1/p' /tmp/hold.out)
	dmesg | sed -n "/$mark\$/,\$p" > /tmp/case.log
	warn=no
	grep -q 'WARNING: .* dax_disassociate_entry' /tmp/case.log && warn=yes
	other=$(grep 'WARNING: ' /tmp/case.log | grep -vc 'dax_disassociate_entry')
	echo "$case_name held=$held delivered=${delivered:-none} differ=${differ:-none} shared=$shared blocked=$blocked wchan=${wchan:--} filled=$filled fillchanged=$fillchanged size=$size intact=$intact sigended=$sigended post=$post ino=$ino oprc=$oprc holdrc=$holdrc warn=$warn otherwarn=$other" >> /work/cases
	[ $holdrc = 0 ] || echo "# $case_name: dax_hold: $(tail -n 1 /tmp/hold.out)" >> /work/cases
	grep -q " /mnt " /proc/mounts && umount /mnt
	true
}

while read -r c; do
	# shellcheck disable=SC2086
	one_case $c
done < /work/cases.in
echo Y > $KNOB
[ -e $SKNOB ] && echo Y > $SKNOB
# (the switch's default)
[ -e $SCTL ] && echo 0 > $SCTL
nbd-client -d /dev/nbd0 > /dev/null
[ $cur_dev = prd ] && { rmmod prd || fail "unload"; }
true
JOB
	vm_run A "$T" A.job "$FSDAX_GUEST_SECS" || return 1
	local line bad=0
	# io_uring's fixed buffers: refused for DAX, taken for anonymous memory
	line=$(grep '^dax ' "$T/uring-reg")
	if [[ $line = "dax register refused: Operation not supported" ]]; then
		echo "ok - io_uring refuses a DAX mapping as a fixed buffer (EOPNOTSUPP: a long-term pin of a file mapping)"
	else
		echo "not ok - io_uring fixed buffer of a DAX mapping: ${line:-no result}"; bad=1
	fi
	line=$(grep '^anon ' "$T/uring-reg")
	if [[ $line = "anon register ok" ]]; then
		echo "ok - io_uring registers anonymous memory as a fixed buffer"
	else
		echo "not ok - io_uring fixed buffer of anonymous memory: ${line:-no result}"; bad=1
	fi
	fsdax_check "$T/cases" "$T/cases.in" || bad=1
	return $bad
}

# fsdax_check CASES WANTED: one TAP line a case of CASES (the job's
# results), each checked as the header says; every case of WANTED ran
fsdax_check() {
	local dev fs path op fix rest kv bad=0 n=0 held delivered differ shared blocked wchan filled
	local fillchanged size intact sigended post ino oprc holdrc warn otherwarn what leak waitfn
	while read -r dev fs path op fix rest; do
		[ "$dev" = "#" ] && { echo "# $fs $path $op $fix $rest"; continue; }
		n=$((n + 1))
		held='' delivered='' differ='' shared='' blocked='' wchan='' filled='' fillchanged='' size=''
		intact='' sigended='' post='' ino='' oprc='' holdrc='' warn='' otherwarn=''
		for kv in $rest; do
			case $kv in
			held=*|delivered=*|differ=*|shared=*|blocked=*|wchan=*|filled=*|fillchanged=*|size=*|intact=*|sigended=*|post=*|ino=*|oprc=*|holdrc=*|warn=*|otherwarn=*)
				eval "${kv%%=*}=\${kv#*=}" ;;
			esac
		done
		what="$dev $fs, $path, $op"
		echo "# $what $fix: $rest"
		# the wait this operation has to be in: eviction's, or the
		# filesystem's own layout break
		case $op:$fs in
		unlink:*|umount:*) waitfn=dax_break_layout_final ;;
		*:ext4) waitfn=ext4_wait_dax_page ;;
		*) waitfn=xfs_wait_dax_page ;;
		esac
		# common to every fixed case: waited in the layout break (the
		# filesystem's callback sleeps for the range operations,
		# dax_break_layout_final() for eviction) until released (or the
		# signal), every queued byte arrived and is the first file's,
		# the sender saw what it sees unfixed, no warning; and the
		# refill (when there is one) got none of the held blocks and is
		# what it was before the release
		if [ "$op" = moveext ]; then
			# refused at once: nothing to wait for, nothing moved
			if [ "$fix" = Y ] && [ "$blocked" = no ] && [ "$post" = ok ] && [ "$oprc" = 1 ] &&
			   [ "$holdrc" = 0 ] && [ "${held:-0}" -gt 0 ] && [ "$delivered" = "$held" ] && [ "$differ" = 0 ] &&
			   [ "$filled" = yes ] && [ "$shared" = 0 ] && [ "$fillchanged" = no ] &&
			   [ "$warn" = no ] && [ "$otherwarn" = 0 ]; then
				echo "ok - fixed: $what: EXT4_IOC_MOVE_EXT with the held DAX file as donor refused (EOPNOTSUPP); $delivered of $held bytes arrive, all the first file's, the refill intact"
				continue
			fi
		elif [ "$fix" = Y ] && [ "$blocked" = yes ] &&
		   [ "$wchan" = "$waitfn" ] && [ "$post" = ok ] &&
		   [ "$holdrc" = 0 ] && [ "${held:-0}" -gt 0 ] && [ "$delivered" = "$held" ] &&
		   { [ "$differ" = 0 ] || { [ "$path" = odread ] && [ "$differ" = - ]; }; } &&
		   [ "$warn" = no ] && [ "$otherwarn" = 0 ] &&
		   { [ "$filled" = yes ] && [ "$shared" = 0 ] && [ "$fillchanged" = no ] || [ "$op" = umount ]; } &&
		   { [ "$fs" != xfsr ] || [ "$ino" = lower ]; }; then
			if [[ $op = sig* ]]; then
				# killed in the wait: failed, the file untouched
				if [ "$sigended" = yes ] && [ "$oprc" != 0 ] && [ "$size" = $((4 << 20)) ] && [ "$intact" = yes ]; then
					echo "ok - fixed: $what waiting in $wchan killed by SIGTERM: exit $oprc, the file still its 4 MiB, $delivered bytes all the first file's"
					continue
				fi
			elif [ "$oprc" = 0 ]; then
				echo "ok - fixed: $what waits in $wchan, then completes; $delivered of $held bytes arrive, all the first file's, the refill intact"
				continue
			fi
		elif [ "$fix" = C ] || [ "$op" = cowwrite ]; then
			# copied: nothing to wait for, nothing to leak
			if [ "$blocked" = no ] && [ "$post" = ok ] && [ "$oprc" = 0 ] && [ "$holdrc" = 0 ] &&
			   [ "${held:-0}" -gt 0 ] && [ "$delivered" = "$held" ] && [ "$differ" = 0 ] &&
			   [ "$filled" = yes ] && [ "$fillchanged" = no ] && [ "$warn" = no ] && [ "$otherwarn" = 0 ]; then
				echo "ok - copied ($([ "$fix" = C ] && echo "fs.dax_splice_read 0" || echo "a reflinked file")): $what does not wait; $delivered of $held bytes arrive, all the first file's"
				continue
			fi
		elif [ "$fix" = N ] && [ "$blocked" = no ] && [ "$post" = ok ] && [ "$filled" = yes ] && [ "${shared:-0}" -gt 0 ] &&
		     { [ "$warn" = yes ] || { [ "$warn" = no ] && [[ $path = splice || $path = resplice || $path = sendfile ]]; }; } &&
		     [ "$otherwarn" = 0 ] && [ "$holdrc" = 0 ]; then
			leak=''
			if [ $path = odread ]; then
				[ "$fillchanged" = yes ] && leak="the device wrote into the refill"
			elif [ "${differ:-0}" -gt 0 ] 2> /dev/null; then
				leak="$differ of $delivered bytes delivered are not the first file's"
			fi
			if [ -n "$leak" ]; then
				echo "ok - unfixed: $what does not wait; the refill took $shared of the held blocks, $leak"
				continue
			fi
		fi
		echo "not ok - $(case $fix in Y) echo fixed ;; C) echo copied ;; *) echo "unfixed (the leak not seen)" ;; esac): $what: $rest"
		bad=1
	done < "$1"
	[ "$n" = "$(wc -l < "$2")" ] || { echo "not ok - expected $(wc -l < "$2") cases, got $n"; bad=1; }
	return $bad
}
