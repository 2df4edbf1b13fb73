# No byte of another file ever leaves, and none that read(2) would refuse.
# A 24 MiB file on ext4 -o dax on prd (devmap) is sent to a receiver on B
# that stalls for 12 s. While its pages are in flight the file cannot be
# truncated, written, hole-punched or opened for writing (ETXTBSY); it can
# be unlinked, and the filesystem filled with a new file, and still B
# receives exactly the original bytes. A file already open for writing is
# refused (ETXTBSY). Only the file's owner may send it (EPERM for another
# user, even with /dev/pmem_zc handed out), or a caller with CAP_SYS_RAWIO:
# not a process holding a device file root opened (serve --user nobody,
# whose workers open /dev/pmem_zc as root and then drop: root's file is
# EPERM to the module and served by sendfile; issue 44). A send reads like read(2) does:
# an inotify watch sees IN_ACCESS. Only DAX files are sources, the files
# whose read(2) returns their blocks' bytes as they lie on pmem (and, as
# read(2) of one, a send makes no flush: 32 sends, fewer than 8; and fails
# with EIO, as read(2), once the filesystem is shut down); the rest
# are refused with EOPNOTSUPP and nothing is sent: a file on ext4 without
# DAX (what pages=sparse and pages=none give), an fs-verity file with a
# tampered block (cat says EIO), every file under data=journal and a file
# with journalled data (chattr +j), and any file on XFS (extents shared
# and deduplicated without a writer), plain or reflinked.
TEST_TIMEOUT=900

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
for m in devmap; do
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
for m in devmap; do
	load_zc map=256M@4G pages=$m || fail "$m: load"
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt || fail "$m: ext4"
	randfill $((24 << 20)) > /mnt/f && sync || fail "$m: test file"
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
	# (it ends at ENOSPC, exit 1: that it wrote something is the check)
	randfill $((1 << 40)) > /mnt/fill 2> /dev/null
	[ -s /mnt/fill ] || fail "$m: fill"
	sync
	wait $snd || fail "$m: send failed: $(cat /tmp/send.out)"
	cat /tmp/send.out
	umount /mnt
	rmmod pmem_zc && rmmod prd || fail "$m: unload"
done

load_zc map=512M@4G pages=devmap || fail "load"
wait_work B.sink 120 || fail "no sink on B"
S=$PEER_B:5002
# inode tables zeroed now, not by ext4lazyinit's flushes during the checks
mkfs.ext4 -q -F -b 4096 -O verity -E lazy_itable_init=0 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt || fail "ext4"
randfill $((1 << 20)) > /mnt/g && sync || fail "test file g"
# a file open for writing cannot be sent
exec 3>>/mnt/g
$ZC send /mnt/g --to $S > /tmp/out 2>&1 && fail "a file open for writing was sent"
grep -q 'Text file busy' /tmp/out || fail "open for writing: $(cat /tmp/out)"
exec 3>&-
check_line "ok - a file open for writing: refused with ETXTBSY"

# only the owner (or CAP_SYS_RAWIO): the device handed out to everyone
chmod 0666 /dev/pmem_zc
chmod 0644 /mnt/g
su -s /bin/sh nobody -c "$ZC send /mnt/g --to $S" > /tmp/out 2>&1 && fail "nobody sent root's file"
grep -q 'Operation not permitted' /tmp/out || fail "not the owner: $(cat /tmp/out)"
chown nobody /mnt/g
su -s /bin/sh nobody -c "$ZC send /mnt/g --to $S" > /tmp/out 2>&1 || fail "the owner could not send: $(cat /tmp/out)"
chmod 0600 /dev/pmem_zc
check_line "ok - a file of another user: EPERM; its owner sends it"
# the right is the caller's, not the device's opener's: serve opens
# /dev/pmem_zc as root, then becomes nobody (--user); root's 0644 file is
# EPERM to the module, and goes by sendfile
chown root /mnt/g
ST=/sys/class/misc/pmem_zc/stats
# moved: the module's bytes sent or copied so far
moved() { echo $(( $(cat $ST/bytes_ref) + $(cat $ST/bytes_copied) )); }
s0=$(cat $ST/sends) p0=$(cat $ST/err_perm)
$ZC serve --root /mnt --bind 127.0.0.1 --port 5010 --user nobody --count 1 --access-log - > /tmp/srv.out 2>&1 & sp=$!
wait_for 10 listening 5010 || fail "serve --user nobody: $(cat /tmp/srv.out)"
grep -q 'as uid 65534 ' /tmp/srv.out || fail "serve --user nobody: $(cat /tmp/srv.out)"
grep -q '^Uid:.65534.65534.65534.65534$' /proc/$sp/status || fail "serve --user nobody: $(grep Uid /proc/$sp/status)"
curl -sS -o /tmp/g.got http://127.0.0.1:5010/g || fail "GET /g"
wait $sp || fail "serve --user nobody: exit $?: $(cat /tmp/srv.out)"
cmp -s /tmp/g.got /mnt/g || fail "GET /g: the body differs"
rm -f /tmp/g.got
[ "$(cat $ST/err_perm)" -gt "$p0" ] && [ "$(cat $ST/sends)" = "$s0" ] &&
	grep -q '"GET /g HTTP/1.1" 200 .* by_ref=0 copied=[1-9]' /tmp/srv.out ||
	fail "serve --user nobody: sends $s0 -> $(cat $ST/sends), err_perm $p0 -> $(cat $ST/err_perm): $(grep 'GET /g' /tmp/srv.out)"
check_line "ok - serve --user nobody, the device opened as root: root's file refused by the module ($(($(cat $ST/err_perm) - p0)) EPERM), served by copy, intact"

# read(2)'s notification: IN_ACCESS
/top/net-tests/tools/bin/inotify_wait /mnt/g 30 > /tmp/ino & ino=$!
wait_for 10 grep -q ready /tmp/ino
$ZC send /mnt/g --to $S > /tmp/out 2>&1 || fail "send for inotify: $(cat /tmp/out)"
wait $ino || fail "no IN_ACCESS after a send: $(cat /tmp/ino)"
check_line "ok - a send is an access: inotify saw IN_ACCESS"

# and no more than read(2) of a DAX file: no write-back, no flush. 32
# sends of /mnt/g; prd's flush count may rise by a journal commit or two,
# not by one a send (what a vfs_fsync() per send did)
FL=/sys/block/pmem0/prd/flushes
sync
f0=$(cat $FL)
i=0
while [ $i -lt 32 ]; do
	$ZC send /mnt/g --to $S > /tmp/out 2>&1 || fail "send $i of 32: $(cat /tmp/out)"
	i=$((i + 1))
done
f1=$(cat $FL)
[ $((f1 - f0)) -lt 8 ] || fail "32 sends of a DAX file flushed prd $((f1 - f0)) times"
check_line "ok - 32 sends of a DAX file: prd flushed $((f1 - f0)) times (fewer than 8: no fsync per send)"

# what read(2) refuses before it reads: a filesystem shut down. The file
# is opened before (an open fails then too); cat of that open file and a
# send from it both end with EIO, and no byte moves.
BIN=/top/net-tests/tools/bin
exec 4< /mnt/g
$BIN/zc_sendtest once - $S 65536 <&4 > /tmp/once 2>&1 || fail "send before the shutdown: $(cat /tmp/once)"
xfs_io -x -c 'shutdown -f' /mnt || fail "shutdown"
cat <&4 > /dev/null 2>&1 && fail "cat read the open file of a shut-down filesystem"
b0=$(moved)
$BIN/zc_sendtest once - $S 65536 <&4 > /tmp/once 2>&1 && fail "a file of a shut-down filesystem was sent: $(cat /tmp/once)"
exec 4<&-
grep -q '^error Input/output error$' /tmp/once || fail "shut down: $(cat /tmp/once)"
[ "$(moved)" = "$b0" ] || fail "shut down: $(( $(moved) - b0 )) bytes moved"
check_line "ok - a shut-down filesystem: cat of an open file and a send from it both fail with EIO, nothing moves"

umount /mnt

# Refused: files that are not DAX. Each send must fail with EOPNOTSUPP and
# move no byte (the module's byte counters stay where they were).
# refused FILE: the send of FILE fails with EOPNOTSUPP and moves nothing
refused() {
	b0=$(moved)
	$ZC send "$1" --to $S > /tmp/out 2>&1 && { echo "sent: $(cat /tmp/out)"; return 1; }
	grep -q 'Operation not supported' /tmp/out || { echo "refused otherwise: $(cat /tmp/out)"; return 1; }
	[ "$(moved)" = "$b0" ] || { echo "$(( $(moved) - b0 )) bytes moved"; return 1; }
}
# a new filesystem: the one above was shut down
mkfs.ext4 -q -F -b 4096 -O verity -E lazy_itable_init=0 /dev/pmem0 && mount /dev/pmem0 /mnt || fail "ext4 without dax"
head -c 65536 /dev/urandom > /mnt/plain && head -c 65536 /dev/urandom > /mnt/v && sync
check "ext4 without DAX: refused with EOPNOTSUPP, nothing sent" refused /mnt/plain
head -c 65536 /dev/urandom > /mnt/j && chattr +j /mnt/j && sync || fail "chattr +j"
check "a file with journalled data (chattr +j): refused" refused /mnt/j
# fs-verity: one byte of a data block flipped on the raw disk; read(2)
# checks it against the Merkle tree and fails, so the send must too
fsverity enable /mnt/v || fail "fsverity enable"
blk=$(filefrag -v /mnt/v | awk '$1 == "0:" { sub(/\.+$/, "", $4); print $4 }')
[ -n "$blk" ] || fail "no block of /mnt/v: $(filefrag -v /mnt/v)"
/usr/bin/dd if=/dev/pmem0 of=/tmp/blk bs=4096 skip=$blk count=1 iflag=direct status=none || fail "read block"
b=$(od -An -tu1 -j 100 -N 1 /tmp/blk | tr -d ' ')
printf "\\$(printf %o $(( (b + 1) % 256 )))" | /usr/bin/dd of=/tmp/blk bs=1 seek=100 conv=notrunc status=none
/usr/bin/dd if=/tmp/blk of=/dev/pmem0 bs=4096 seek=$blk count=1 oflag=direct conv=notrunc status=none || fail "write block"
echo 3 > /proc/sys/vm/drop_caches
check "fs-verity: read(2) of the tampered file fails with EIO" sh -c '! cat /mnt/v > /dev/null 2> /tmp/cat.err && grep -q "Input/output error" /tmp/cat.err'
check "fs-verity: the tampered file is refused, nothing sent" refused /mnt/v
umount /mnt
# data=journal journals every file without its flag
mount -o data=journal /dev/pmem0 /mnt || fail "data=journal"
head -c 65536 /dev/urandom > /mnt/dj && sync
check "data=journal: a file without the +j flag is refused" refused /mnt/dj
umount /mnt
# XFS shares extents (FIDEDUPERANGE needs no writer): no file of it is a
# source, a reflinked one (bmap() 0) as little as a plain one
mkfs.xfs -q -f -m reflink=1 /dev/pmem0 && mount /dev/pmem0 /mnt2 || fail "xfs"
randfill $((1 << 20)) > /mnt2/plain && randfill $((1 << 20)) > /mnt2/a && sync ||
	fail "xfs test files"
xfs_io -f -c "reflink /mnt2/a" /mnt2/b > /dev/null || fail "reflink"
sync
for f in plain a; do
	$ZC send /mnt2/$f --to $S > /tmp/out 2>&1 && fail "XFS file $f was sent"
	grep -q 'Operation not supported' /tmp/out || fail "XFS $f: $(cat /tmp/out)"
done
check_line "ok - XFS: plain and reflinked files refused with EOPNOTSUPP, never sent as zeros"
umount /mnt2
touch /work/A.done
rmmod pmem_zc && rmmod prd || fail "unload"
JOB
	vm_run2 "$T" 800 || return 1
	local m bad=0
	for m in devmap; do
		if ! cmp -s "$T/sent.$m" "$T/recv.$m"; then
			echo "not ok - $m: sent $(cat "$T/sent.$m"), B got $(cat "$T/recv.$m")"; bad=1
		elif [ "$(grep -c ' ETXTBSY$' "$T/tries.$m")" != 4 ] || ! grep -q '^unlink ran$' "$T/tries.$m"; then
			echo "not ok - $m: while in flight: $(tr '\n' ';' < "$T/tries.$m")"; bad=1
		else
			echo "ok - $m: truncate, append, overwrite, punch ETXTBSY; unlink and a filled filesystem: B got the original 24 MiB"
		fi
	done
	# A's parts (vm_wait printed them): 7 of its own (no flush per send and
	# EIO once shut down among them), 5 files that are not DAX
	[ "$(grep -a -c '^ok - ' "$T/A.parts" 2>/dev/null)" = 12 ] ||
		{ echo "not ok - expected 12 parts on A, got $(grep -a -c '^ok - ' "$T/A.parts" 2>/dev/null)"; bad=1; }
	return $bad
}
