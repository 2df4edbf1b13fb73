# No byte of another file ever leaves. A 24 MiB file on ext4 on prd is sent
# to a receiver on B that stalls for 12 s, in devmap mode (ext4 -o dax) and
# in sparse mode (ext4, no DAX). While its pages are in flight the file
# cannot be truncated, written, hole-punched or opened for writing (ETXTBSY);
# it can be unlinked, and the filesystem filled with a new file, and still
# B receives exactly the original bytes. A file already open for writing is
# refused (ETXTBSY). Only the file's owner may send it (EPERM for another
# user, even with /dev/pmem_zc handed out). A send reads like read(2) does:
# an inotify watch sees IN_ACCESS. Files whose blocks write denial cannot
# hold are refused with EOPNOTSUPP, never sent as zeros or stale blocks:
# journalled data (chattr +j), and any file on XFS (extents shared and
# deduplicated without a writer), plain or reflinked (bmap() 0).
TEST_TIMEOUT=900

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
for m in devmap sparse; do
	# accepts, then reads nothing for 12 s
	socat -u TCP-LISTEN:5001,reuseaddr SYSTEM:'sleep 12; cat > /tmp/recv' & rx=$!
	wait_for 10 listening 5001 || fail "receiver"
	touch /work/B.ready.$m
	wait $rx
	echo "$(stat -c %s /tmp/recv) $(sha256sum < /tmp/recv | cut -d' ' -f1)" > /work/recv.$m
done
socat -u TCP-LISTEN:5002,reuseaddr,fork /dev/null & 
touch /work/B.sink
wait_work A.done 600
JOB
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
mkdir -p /mnt /mnt2
# try CMD...: run it, say whether it failed with "Text file busy"
try() {
	"$@" > /tmp/try 2>&1 && { echo "ran"; return; }
	grep -q 'Text file busy' /tmp/try && echo ETXTBSY || echo "failed: $(head -1 /tmp/try)"
}
for m in devmap sparse; do
	opts=; [ $m = devmap ] && opts="-o dax"
	load_zc map=256M@4G pages=$m || fail "$m: load"
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount $opts /dev/pmem0 /mnt || fail "$m: ext4"
	head -c $((24 << 20)) /dev/urandom > /mnt/f && sync
	echo "$(stat -c %s /mnt/f) $(sha256sum < /mnt/f | cut -d' ' -f1)" > /work/sent.$m
	wait_work B.ready.$m 120 || fail "$m: B not ready"
	$ZC send /mnt/f --to $PEER_B:5001 > /tmp/send.out 2>&1 & snd=$!
	sleep 4
	kill -0 $snd 2>/dev/null || fail "$m: the send ended before the receiver read: $(cat /tmp/send.out)"
	{
		echo "truncate $(try truncate -s 0 /mnt/f)"
		echo "append $(try sh -c 'echo x >> /mnt/f')"
		echo "overwrite $(try /usr/bin/dd if=/dev/zero of=/mnt/f bs=4k count=1 conv=notrunc status=none)"
		echo "punch $(try xfs_io -c 'fpunch 0 1m' /mnt/f)"
		echo "unlink $(try rm /mnt/f)"
	} > /work/tries.$m
	# whatever blocks are free now, a new file takes them
	/usr/bin/dd if=/dev/urandom of=/mnt/fill bs=1M status=none 2>/dev/null
	sync
	wait $snd || fail "$m: send failed: $(cat /tmp/send.out)"
	cat /tmp/send.out
	umount /mnt
	rmmod pmem_zc && rmmod prd || fail "$m: unload"
done

load_zc map=512M@4G pages=devmap || fail "load"
wait_work B.sink 120 || fail "no sink on B"
S=$PEER_B:5002
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount /dev/pmem0 /mnt || fail "ext4"
head -c $((1 << 20)) /dev/urandom > /mnt/g && sync
# a file open for writing cannot be sent
exec 3>>/mnt/g
$ZC send /mnt/g --to $S > /tmp/out 2>&1 && fail "a file open for writing was sent"
grep -q 'Text file busy' /tmp/out || fail "open for writing: $(cat /tmp/out)"
exec 3>&-
echo "ok - a file open for writing: refused with ETXTBSY"

# only the owner (or CAP_SYS_RAWIO): the device handed out to everyone
chmod 0666 /dev/pmem_zc
chmod 0644 /mnt/g
su -s /bin/sh nobody -c "$ZC send /mnt/g --to $S" > /tmp/out 2>&1 && fail "nobody sent root's file"
grep -q 'Operation not permitted' /tmp/out || fail "not the owner: $(cat /tmp/out)"
chown nobody /mnt/g
su -s /bin/sh nobody -c "$ZC send /mnt/g --to $S" > /tmp/out 2>&1 || fail "the owner could not send: $(cat /tmp/out)"
chmod 0600 /dev/pmem_zc
echo "ok - a file of another user: EPERM; its owner sends it"

# read(2)'s notification: IN_ACCESS
/top/net-tests/tools/bin/inotify_wait /mnt/g 30 > /tmp/ino & ino=$!
wait_for 10 grep -q ready /tmp/ino
$ZC send /mnt/g --to $S > /tmp/out 2>&1 || fail "send for inotify: $(cat /tmp/out)"
wait $ino || fail "no IN_ACCESS after a send: $(cat /tmp/ino)"
echo "ok - a send is an access: inotify saw IN_ACCESS"

# journalled data: bmap() would flush the journal for every send
head -c 65536 /dev/urandom > /mnt/j && chattr +j /mnt/j && sync || fail "chattr +j"
$ZC send /mnt/j --to $S > /tmp/out 2>&1 && fail "a file with journalled data was sent"
grep -q 'Operation not supported' /tmp/out || fail "journalled data: $(cat /tmp/out)"
echo "ok - a file with journalled data: EOPNOTSUPP"
umount /mnt

# XFS shares extents (FIDEDUPERANGE needs no writer): no file of it is a
# source, a reflinked one (bmap() 0) as little as a plain one
mkfs.xfs -q -f -m reflink=1 /dev/pmem0 && mount /dev/pmem0 /mnt2 || fail "xfs"
head -c $((1 << 20)) /dev/urandom > /mnt2/plain
head -c $((1 << 20)) /dev/urandom > /mnt2/a && sync
xfs_io -f -c "reflink /mnt2/a" /mnt2/b > /dev/null || fail "reflink"
sync
for f in plain a; do
	$ZC send /mnt2/$f --to $S > /tmp/out 2>&1 && fail "XFS file $f was sent"
	grep -q 'Operation not supported' /tmp/out || fail "XFS $f: $(cat /tmp/out)"
done
echo "ok - XFS: plain and reflinked files refused with EOPNOTSUPP, never sent as zeros"
umount /mnt2
touch /work/A.done
rmmod pmem_zc && rmmod prd || fail "unload"
JOB
	vm_run2 "$T" 800 || return 1
	local m bad=0
	for m in devmap sparse; do
		if ! cmp -s "$T/sent.$m" "$T/recv.$m"; then
			echo "not ok - $m: sent $(cat "$T/sent.$m"), B got $(cat "$T/recv.$m")"; bad=1
		elif [ "$(grep -c ' ETXTBSY$' "$T/tries.$m")" != 4 ] || ! grep -q '^unlink ran$' "$T/tries.$m"; then
			echo "not ok - $m: while in flight: $(tr '\n' ';' < "$T/tries.$m")"; bad=1
		else
			echo "ok - $m: truncate, append, overwrite, punch ETXTBSY; unlink and a filled filesystem: B got the original 24 MiB"
		fi
	done
	grep -a '^ok - ' "$T/A.serial.log"
	[ "$(grep -a -c '^ok - ' "$T/A.serial.log")" = 5 ] || { echo "expected 5 parts on A"; bad=1; }
	return $bad
}
