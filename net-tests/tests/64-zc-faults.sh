# Faults: the receiver on B killed in the middle of a zero-copy send, and
# nbd-server on B killed in the middle of a copy to B's disk: each fails
# within a bounded time; while the send runs, unloading pmem_zc or prd is
# refused. A copy stuck on a stalled nbd-server dies at once on kill -9,
# its source file write-denied and pmem_zc pinned until its bios end.
# Afterwards no page is held and both modules unload.
TEST_TIMEOUT=900

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
socat -u TCP-LISTEN:5001,reuseaddr - > /dev/null & rx=$!
wait_for 10 listening 5001 || fail "receiver"
nbd_serve /dev/vda || fail "nbd-server"
touch /work/B.ready
wait_work A.sending 300 || fail "A never sent"
sleep 3
kill -9 $rx && touch /work/B.killed-rx
wait_work A.copying 300 || fail "A never copied"
sleep 3
kill -9 $(pidof nbd-server) && touch /work/B.killed-nbd
# 3. a stalled nbd-server (SIGSTOP), then resumed
wait_work A.nbd-again 600 || fail "A never asked for nbd again"
nbd_serve /dev/vda || fail "nbd-server again"
touch /work/B.ready2
wait_work A.stall 120 || fail "A never asked for the stall"
kill -STOP $(pidof nbd-server) && touch /work/B.stopped
wait_work A.resume 120
kill -CONT $(pidof nbd-server)
wait_work A.done 300
JOB
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
load_zc map=512M@4G pages=devmap || fail "load"
wait_work B.ready 120 || fail "B not ready"

# 1. the receiver dies in the middle of a 400 MiB send
t0=$(date +%s)
$ZC send /dev/pmem0 --length 400M --to $PEER_B:5001 > /tmp/send.out 2>&1 & snd=$!
touch /work/A.sending
sleep 1
rmmod pmem_zc 2>/dev/null && fail "pmem_zc unloaded during a send"
rmmod prd 2>/dev/null && fail "prd unloaded during a send"
echo "rmmod refused during the send"
wait $snd && fail "send succeeded although the receiver was killed"
dt=$(($(date +%s) - t0))
cat /tmp/send.out
[ -e /work/B.killed-rx ] || fail "the send ended before the receiver was killed"
[ $dt -lt 60 ] || fail "send took ${dt}s to fail"
echo "send failed after ${dt}s: $(tail -1 /tmp/send.out)"
check "no send in flight after the receivers were killed" wait_value 30 /sys/class/misc/pmem_zc/stats/ops_inflight 0
check "no page referenced by the stack after the receivers were killed" wait_value 30 /sys/block/pmem0/prd/pages_referenced 0

# 2. nbd-server dies in the middle of a copy
nbd_attach $PEER_B || fail "nbd-client"
t0=$(date +%s)
$ZC copy /dev/pmem0 --to /dev/nbd0 --length 200M > /tmp/copy.out 2>&1 & cp=$!
touch /work/A.copying
wait $cp && fail "copy succeeded although nbd-server was killed"
dt=$(($(date +%s) - t0))
cat /tmp/copy.out
[ -e /work/B.killed-nbd ] || fail "the copy ended before nbd-server was killed"
[ $dt -lt 90 ] || fail "copy took ${dt}s to fail"
echo "copy failed after ${dt}s: $(tail -1 /tmp/copy.out)"
nbd-client -d /dev/nbd0
check "no page referenced after the failed copy" wait_value 30 /sys/block/pmem0/prd/pages_referenced 0

# 3. a copy stuck on a stalled nbd-server is killable: kill -9 returns at
# once, and the copy lives on until its bios end: the source file stays
# write-denied (its blocks are under the bios) and pmem_zc pinned
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount -o dax /dev/pmem0 /mnt &&
	randfill $((128 << 20)) > /mnt/f && sync || fail "ext4 -o dax"
touch /work/A.nbd-again
wait_work B.ready2 120 || fail "B's nbd-server not back"
nbd_attach $PEER_B || fail "nbd-client again"
# the partition scan's read done, so that opening the disk cannot stall
/usr/bin/dd if=/dev/nbd0 of=/dev/null bs=4k count=1 status=none || fail "read nbd0"
$ZC copy /mnt/f --to /dev/nbd0 > /tmp/c3 2>&1 & cp=$!
touch /work/A.stall
wait_work B.stopped 60 || fail "B did not stop nbd-server"
sleep 3
kill -0 $cp 2> /dev/null || fail "the copy ended before nbd-server stopped: $(cat /tmp/c3)"
t0=$(now_us)
kill -9 $cp; wait $cp
dt=$(( ($(now_us) - t0) / 1000 ))
check "kill -9 of a copy stuck on a stalled NBD server returns at once (${dt} ms)" test $dt -lt 3000
check "the source stays write-denied while the killed copy's bios are out" \
	sh -c '! truncate -s 0 /mnt/f 2> /tmp/tr.err && grep -q "Text file busy" /tmp/tr.err'
check "rmmod pmem_zc refused while they are out" sh -c '! rmmod pmem_zc 2> /dev/null'
touch /work/A.resume
check "the source is writable again once the bios ended" wait_for 60 truncate -s 0 /mnt/f
check "no page referenced after the killed copy" wait_value 30 /sys/block/pmem0/prd/pages_referenced 0
nbd-client -d /dev/nbd0 > /dev/null
umount /mnt
touch /work/A.done

cat /sys/class/misc/pmem_zc/stats/err_net /sys/class/misc/pmem_zc/stats/err_io > /work/errs
rmmod pmem_zc || fail "rmmod pmem_zc after the faults"
rmmod prd || fail "rmmod prd after the faults"
echo "both modules unloaded"
JOB
	vm_run2 "$T" 800 || return 1
	grep -a 'failed after' "$T/A.serial.log" | sed 's/^/# /'
}
