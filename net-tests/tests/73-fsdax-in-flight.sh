# What becomes of fs-DAX pages still in flight when their memory goes bad
# or their device goes away (issue 44, parts 4, 5 and 2). 1 MiB of a
# 4 MiB file is held in a pipe (net-tests/tools/dax_hold.c), then:
#
# poison (6.12: the DAX splice series; prd pages=devmap, ext4 -o dax):
#   the file spliced into the pipe by reference, then a memory failure
#   injected into the page at 64 KiB (madvise(MADV_HWPOISON) through a
#   mapping of the file: dax_touch poison). The pipe's reader must get the
#   64 KiB before it and then EIO, as read(2) of a bad block gets EIO
#   (copy_mc); before dax-splice/0002's ->confirm it read the page with a
#   plain copy, which on a real media error is a machine check in kernel
#   mode (QEMU raises none: here the read simply succeeded). The page is
#   only marked (PageHWPoison): nothing is bad in QEMU's memory, and no
#   driver learns a bad block from a software injection, so read(2) of the
#   file still succeeds there.
# unbind (nd_pmem, an fsdax namespace, -o dax): 1 MiB of the file held,
#   then the namespace's pmem driver unbound under the mounted filesystem
#   (sysfs unbind, as a hot removal does; ndctl disable-namespace refuses
#   a mounted one). The unbind must wait, saying so every 30 s, while the
#   pages are held (mm-export-patch/<version>/fsdax-holes/:
#   memunmap_pages() waits for FS_DAX pages to go idle), every byte
#   delivered must be the file's, and the unbind must complete once they
#   are let go; before, the memmap and the direct map went at once and
#   the pipe's reader faulted on them. Four cases:
#     ext4 vmsplice   a pipe, the file kept open (its inode is then not
#                     evicted by the filesystem's death, whose eviction
#                     would wait for the pages itself: fsdax-busy/),
#                     held for two reports (30 s apart); then umount: before
#                     fsdax-holes' drop of the entries at the device's
#                     death, eviction walked them into the freed memmap
#     xfs vmsplice    the same on XFS with rmapbt: on 6.12 the unbind
#                     first runs XFS's pre-remove notification, which
#                     freezes, invalidates and shuts it down (its AG walk
#                     went past the last AG of a filesystem smaller than
#                     its device before fsdax-holes' clamp, a NULL perag
#                     dereference in kill_dax(); 6.1's kill_dax()
#                     notifies too, with flags 0)
#     xfsn vmsplice   XFS without rmapbt: no notification at all
#     ext4 odread     an O_DIRECT read of a stopped nbd disk into a
#                     mapping of the file (the bio pins the pages), the
#                     file open across the unbind, then, while the unbind
#                     waits, closed and the filesystem unmounted (the
#                     inode evicted), then the disk let go: the bio's
#                     release dirties pages whose inode is gone, which
#                     must no longer point at it
TEST_TIMEOUT=900

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
trap '' PIPE
HOLD=/tmp/dax_hold TOUCH=/top/net-tests/tools/bin/dax_touch
cp /top/net-tests/tools/bin/dax_hold $HOLD && chmod 0755 $HOLD || fail "dax_hold"
mkdir -p /mnt

# hold MODE: dax_hold MODE of /mnt/f's first 1 MiB, released by a line on
# fd 4 (the fifo); waits for "held"
hold() {
	rm -f /tmp/go /tmp/hold.out
	mkfifo /tmp/go
	$HOLD "$1" /mnt/f 1M /tmp/got < /tmp/go > /tmp/hold.out 2>&1 & h=$!
	exec 4> /tmp/go
	wait_for 60 grep -q '^held ' /tmp/hold.out || fail "$1: no hold: $(cat /tmp/hold.out)"
}
# release: the holder reads the pipe; its exit status and output, one
# line in /tmp/rel.out
release() {
	echo go >&4
	exec 4>&-
	wait_for 60 grep -q '^delivered ' /tmp/hold.out || { kill -9 $h; fail "dax_hold did not deliver: $(cat /tmp/hold.out)"; }
	wait $h
	echo "rc=$? $(tr '\n' ' ' < /tmp/hold.out)" > /tmp/rel.out
}

if [ -e /proc/sys/fs/dax_splice_read ]; then
	$INSMOD $PRD_KO map=32M@4G pages=devmap || fail "insmod prd"
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 32M && mount -o dax /dev/pmem0 /mnt &&
		randfill $((4 << 20)) > /mnt/f && sync || fail "ext4 on prd"
	echo 1 > /proc/sys/fs/dax_splice_read
	hold splice
	$TOUCH /mnt/f poison 65536 > /tmp/touch 2>&1
	echo "touch $(cat /tmp/touch)" > /work/poison
	release
	cat /tmp/rel.out >> /work/poison
	echo 0 > /proc/sys/fs/dax_splice_read
	umount /mnt && rmmod prd || fail "unload prd"
else
	echo "skip" > /work/poison
fi

modprobe nd_pmem && modprobe nfit || fail "modprobe nd_pmem"
wait_for 30 test -e /sys/bus/nd/devices/namespace0.0 || fail "no namespace0.0"
ndctl create-namespace -f -e namespace0.0 -m fsdax > /tmp/ndctl.out 2>&1 || fail "ndctl: $(cat /tmp/ndctl.out)"
# the stalled disk of odread: /dev/nbd0 from an nbd-server on loopback
# (4 MiB of zeros on tmpfs), no request timeout
dd if=/dev/zero of=/tmp/nbd.img bs=1M count=4 2> /dev/null
nbd_serve /tmp/nbd.img || fail "nbd-server"
nbd-client -N disk 127.0.0.1 /dev/nbd0 > /dev/null || fail "nbd-client"
/usr/bin/dd if=/dev/nbd0 of=/dev/null bs=4096 count=1 status=none || fail "read nbd0"
# CASE: FS PATH REPORTS: FS ext4, xfs (rmapbt: the pre-remove
# notification) or xfsn (no rmapbt: no notification); PATH vmsplice, or
# odread (an O_DIRECT read of the stopped nbd disk into a mapping of the
# file, whose bio pins the pages, and the filesystem unmounted while the
# unbind waits, before the disk is let go: its release then dirties pages
# whose inode is gone); REPORTS: how many of the unbind's reports (one
# every 30 s of the kernel's clock, which under TCG runs slower than the
# guest's sleep: bounded at 120 s) the holder waits for before it lets go
for c in "ext4 vmsplice 2" "xfs vmsplice 1" "xfsn vmsplice 1" "ext4 odread 1"; do
	set -- $c
	fs=$1 path=$2 reports=$3 case="$fs-$path"
	wait_for 30 test -b /dev/pmem0 || fail "$case: no /dev/pmem0 from nd_pmem"
	dev=$(basename "$(readlink -f /sys/block/pmem0/device)")
	case $fs in
	ext4) mkfs.ext4 -q -F -b 4096 /dev/pmem0 32M ;;
	# (below XFS's 300 MB minimum the way fstests makes it)
	xfs|xfsn) TEST_DIR=/mnt TEST_DEV=/dev/pmem0 QA_CHECK_FS=1 \
		mkfs.xfs -q -f -m rmapbt=$([ $fs = xfs ] && echo 1 || echo 0),reflink=0 -d size=32m /dev/pmem0 ;;
	esac && mount -o dax /dev/pmem0 /mnt && randfill $((4 << 20)) > /mnt/f && sync ||
		fail "$case on nd_pmem"
	echo "fsdax-in-flight: unbind $case" > /dev/kmsg
	rm -f /tmp/go /tmp/hold.out /tmp/unbind.rc /tmp/umount.rc
	mkfifo /tmp/go
	if [ $path = odread ]; then
		killall -STOP nbd-server || fail "$case: stop nbd-server"
		$HOLD odread /mnt/f 1M /tmp/got /dev/nbd0 < /tmp/go > /tmp/hold.out 2>&1 & h=$!
	else
		$HOLD vmsplice /mnt/f 1M /tmp/got < /tmp/go > /tmp/hold.out 2>&1 & h=$!
	fi
	exec 4> /tmp/go
	wait_for 60 grep -q '^held ' /tmp/hold.out || fail "$case: no hold: $(cat /tmp/hold.out)"
	# the file kept open, so that the filesystem's death does not evict
	# its inode (whose eviction would wait for the pages itself)
	exec 5< /mnt/f
	(echo "$dev" > /sys/bus/nd/drivers/nd_pmem/unbind; echo $? > /tmp/unbind.rc) 4>&- 5<&- &
	wait_for 120 sh -c "[ \$(dmesg | sed -n '/fsdax-in-flight: unbind $case\$/,\$p' | grep -c 'memunmap_pages: .*waiting for the references') -ge $reports ]"
	sleep 1
	waited=no
	[ -e /tmp/unbind.rc ] || waited=yes
	umounted=-
	if [ $path = odread ]; then
		# closed and unmounted under the pinned pages, before their
		# release: the eviction of the inode at umount
		exec 5<&-
		(umount /mnt; echo $? > /tmp/umount.rc) 4>&- &
		wait_for 30 test -e /tmp/umount.rc && umounted=$(cat /tmp/umount.rc) || umounted=stuck
		killall -CONT nbd-server
	fi
	dmesg | sed -n "/fsdax-in-flight: unbind $case\$/,\$p" > /tmp/case.log
	said=$(grep -c 'memunmap_pages: .*waiting for the references' /tmp/case.log)
	prerm=$(grep -c 'Device is about to be removed' /tmp/case.log)
	release
	out=$(cat /tmp/rel.out)
	wait_for 30 test -e /tmp/unbind.rc && done=yes || done=no
	echo "$case waited=$waited said=$said prerm=$prerm umounted=$umounted done=$done unbind_rc=$(cat /tmp/unbind.rc 2> /dev/null) gone=$([ -b /dev/pmem0 ] && echo no || echo yes) $out" > /work/unbind-$case
	exec 5<&-
	if [ $path = vmsplice ]; then
		umount /mnt || fail "$case: umount after the unbind"
	fi
	echo "$dev" > /sys/bus/nd/drivers/nd_pmem/bind || fail "$case: bind $dev again"
done
nbd-client -d /dev/nbd0 > /dev/null
JOB
	vm_run A "$T" A.job 800 || return 1
	local bad=0 line prerm_kernel=yes
	# 6.1's kill_dax() sends no pre-remove notification
	[ "${PMEMZC_KERNEL:-6.12}" != 6.1 ] || prerm_kernel=no
	line=$(cat "$T/poison")
	if [ "$line" = skip ]; then
		echo "ok - poison in a pipe # SKIP no DAX splice on this kernel (6.12's series)"
	elif grep -qx 'touch poisoned' "$T/poison" &&
	     grep -qE '^rc=1 held 1048576 delivered 65536 0 read: Input/output error $' "$T/poison"; then
		echo "ok - a page poisoned in a pipe: the pipe delivers the 64 KiB before it, all the file's, then EIO"
	else
		echo "not ok - a page poisoned in a pipe: $(tr '\n' ' ' < "$T/poison")"; bad=1
	fi
	local case want
	for case in ext4-vmsplice xfs-vmsplice xfsn-vmsplice ext4-odread; do
		line=$(cat "$T/unbind-$case" 2> /dev/null)
		# the unbind still waiting after the hold, having said so (twice
		# 30 s apart, for the first), done once the pages were let go, the device gone,
		# every byte delivered the file's (odread: the bio moved its
		# 1 MiB, and the filesystem was unmounted while it held them)
		case $case in
		ext4-vmsplice) want="$case waited=yes said=[2-9]* umounted=- done=yes unbind_rc=0 gone=yes rc=0 held 1048576 delivered 1048576 0 " ;;
		*-vmsplice) want="$case waited=yes said=[1-9]* umounted=- done=yes unbind_rc=0 gone=yes rc=0 held 1048576 delivered 1048576 0 " ;;
		ext4-odread) want="$case waited=yes said=[1-9]* umounted=0 done=yes unbind_rc=0 gone=yes rc=0 held 1048576 delivered 1048576 - " ;;
		esac
		# (the pre-remove notification: XFS with rmapbt, on 6.12)
		if [[ $line = $want ]] && { [ $case != xfs-vmsplice ] || [ "$prerm_kernel" = no ] || [[ $line = *" prerm="[1-9]* ]]; }; then
			case $case in
			ext4-vmsplice) echo "ok - ext4 on nd_pmem, its driver unbound with 1 MiB in a pipe: the unbind waits (and says so, twice, 30 s apart), the pipe delivers the file's bytes, then the unbind completes and the filesystem unmounts" ;;
			xfs-vmsplice) echo "ok - XFS (rmapbt) on nd_pmem, the same$([ "$prerm_kernel" = yes ] && echo ", after XFS's pre-remove shutdown")" ;;
			xfsn-vmsplice) echo "ok - XFS without rmapbt (no notification) on nd_pmem, the same" ;;
			ext4-odread) echo "ok - ext4 on nd_pmem, an O_DIRECT read into the file's mapping stalled across the unbind: the filesystem unmounts while the bio holds the pages, then the bio completes and the unbind with it" ;;
			esac
		else
			echo "not ok - $case on nd_pmem, unbound with pages in flight: ${line:-no result}"; bad=1
		fi
	done
	return $bad
}
