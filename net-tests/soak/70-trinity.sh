# Soak: Debian's trinity (issue 26, part 2) as an unprivileged user, with
# prd in each page mode (none, sparse, devmap) and pmem_zc loaded, for
# 90 x SOAK_SCALE s a mode (TRINITY_SECS: other seconds; TRINITY_MODES:
# some of the modes). The user is nobody, in the group that may open
# /dev/pmem_zc (mode 0660, as the package's udev rule makes it). Trinity's
# victims (-V) are a directory on ext4 over /dev/pmem1 owned by nobody
# (-o dax with pages=devmap: fs-DAX takes ZONE_DEVICE pages only): files,
# and device nodes of a raw prd disk (/dev/pmem0, no filesystem on it) and of /dev/pmem_zc, so that its fd providers hand
# them to every syscall it makes. The hung-task timeout is raised for TCG
# (its default, 120 s, is met by a debug kernel under trinity); no splat
# is filtered. Afterwards nothing is in flight or referenced and both
# modules unload. Figure, per mode: syscalls trinity ran, and what pmem_zc
# counted (its ioctls that reached a send or a copy, and the ones it
# refused: the sum of its err_* counters). Trinity's own socket fds are
# off (--disable-fds=sockets): building its socket cache segfaults it in
# these guests; its socket syscalls still run.
SOAK_SCALE=${SOAK_SCALE:-1}
TRINITY_SECS=${TRINITY_SECS:-$((90 * SOAK_SCALE))}
TEST_TIMEOUT=$((3 * TRINITY_SECS + 900))

test_run() {
	local secs=$TRINITY_SECS tr
	local modes=${TRINITY_MODES:-none sparse devmap}
	# from Debian's .deb, never installed on the host; not in the
	# initramfs (11 MB, which 40-pressure's smallest guest has not got
	# to spare): from the test's folder, /work in the guest
	tr=$("$PMEMZC_TOP/vm/get-deb-file.sh" trinity /usr/bin/trinity) || return 1
	install -m 0755 "$tr" "$T/trinity"
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
SECS=$secs MODES="$modes"
JOB
	cat >> "$T/A.job" <<'JOB'
echo 600 > /proc/sys/kernel/hung_task_timeout_secs
cp /work/trinity /tmp/trinity || fail "no trinity"
S=/sys/class/misc/pmem_zc/stats
errs() { cat $S/err_* | awk '{ n += $1 } END { print n }'; }
for m in $MODES; do
	load_zc map=256M@4G,256M@0x110000000 pages=$m || fail "$m: load"
	chgrp nogroup /dev/pmem_zc && chmod 0660 /dev/pmem_zc || fail "group access"
	# fs-DAX needs ZONE_DEVICE pages: pages=devmap only
	dax=; [ $m = devmap ] && dax=-odax
	mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mkdir -p /mnt && mount $dax /dev/pmem1 /mnt || fail "$m: mkfs"
	mkdir /mnt/tv /mnt/tr
	for i in 0 1 2 3; do randfill $((1 << (16 + 2 * i))) > /mnt/tv/f$i; done
	mknod /mnt/tv/pmem0 b $(tr : ' ' < /sys/class/block/pmem0/dev) &&
		mknod /mnt/tv/pmem_zc c $(tr : ' ' < /sys/class/misc/pmem_zc/dev) || fail "mknod"
	chown -R nobody:nogroup /mnt/tv /mnt/tr && chmod 0660 /mnt/tv/pmem0 /mnt/tv/pmem_zc
	s0=$(cat $S/sends) c0=$(cat $S/copies) e0=$(errs)
	cd /mnt/tr
	# the kernel is tainted already (out-of-tree modules): trinity stops
	# on the taints of a splat only
	su -s /bin/sh nobody -c "timeout -s INT $SECS /tmp/trinity -q -C 4 -V /mnt/tv -l off --stats -T DIE,WARN,BAD_PAGE --disable-fds=sockets" > /tmp/tr.$m 2>&1
	rc=$?
	cd /
	sleep 2; pkill -9 -u nobody 2>/dev/null
	wait_for 30 sh -c '! pgrep -u nobody > /dev/null' || fail "$m: trinity's children live on"
	ran=$(grep -ao 'Ran [0-9]* syscalls' /tmp/tr.$m | tail -1 | awk '{print $2}')
	echo "$m rc=$rc ran=${ran:-0} sends=$(( $(cat $S/sends) - s0 )) copies=$(( $(cat $S/copies) - c0 )) zc_errors=$(( $(errs) - e0 ))" >> /work/figure
	cp /tmp/tr.$m /work/trinity.$m	# all of it: why it ended, its --stats
	umount /mnt || { sleep 5; umount /mnt; } || fail "$m: umount"
	wait_value 60 $S/ops_inflight 0 || fail "$m: sends in flight"
	wait_value 60 /sys/block/pmem0/prd/pages_referenced 0 || fail "$m: pages referenced"
	rmmod pmem_zc && rmmod prd || fail "$m: unload"
	echo "ok - $m: trinity as nobody for $SECS s, modules unloaded"
done
JOB
	vm_run A "$T" A.job $((3 * secs + 600)); local rc=$?
	rm -f "$T/trinity"
	[ $rc = 0 ] || return 1
	grep -a '^ok - ' "$T/A.serial.log"
	local m line ran
	for m in $modes; do
		line=$(grep "^$m " "$T/figure") || { echo "not ok - $m: no figure"; return 1; }
		echo "# soak-figure trinity $line"
		ran=$(echo "$line" | sed -n 's/.* ran=\([0-9]*\).*/\1/p')
		[ "${ran:-0}" -gt 0 ] || { echo "not ok - $m: trinity ran no syscall"; tail -20 "$T/trinity.$m"; return 1; }
	done
}
