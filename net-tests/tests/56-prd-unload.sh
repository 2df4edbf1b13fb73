# Unloading prd while pages of a region are still referenced. (1) A pipe
# holds pmem pages of a DAX file (vmsplice) after the filesystem is
# unmounted: rmmod waits and says so, SIGKILL ends the wait, the module
# goes and the region is leaked (still claimed), never its memmap freed
# under the pipe; closing the pipe afterwards is no splat. (2) A page put
# once too often (a stray put_page(), test module page_put_test) is seen at
# unload: one WARN naming the region, and the region is leaked too.
TEST_TIMEOUT=600
# (2) provokes exactly this WARN on purpose
TEST_SPLAT_ALLOW='cut here|WARNING: CPU: [0-9]+ PID: [0-9]+ at .*prd_main.c:[0-9]+ prd_wait_idle|prd: region 0: [0-9]+ pages below their base reference|Call Trace:'

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
P=/top/pmem-driver/prd.ko
mkdir -p /mnt
# 1. a pipe holds pages of the region past umount
$INSMOD $P map=256M@4G pages=devmap || fail "load 1"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt || fail "ext4 dax"
head -c $((1 << 20)) /dev/urandom > /mnt/f && sync
/top/net-tests/tools/bin/vmsplice_hold /mnt/f 16 > /tmp/hold & holder=$!
wait_for 10 grep -q held /tmp/hold || fail "vmsplice_hold: $(cat /tmp/hold)"
umount /mnt || fail "umount"
[ "$(cat /sys/block/pmem0/prd/pages_referenced)" -ge 16 ] || fail "pipe holds $(cat /sys/block/pmem0/prd/pages_referenced) pages, expected 16"
dmesg -c > /dev/null
rmmod prd & rm_pid=$!
sleep 4
kill -0 $rm_pid 2>/dev/null || fail "rmmod returned while 16 pages were referenced"
dmesg | grep -q 'region 0: waiting for 16 referenced pages' || fail "the wait says nothing: $(dmesg | tail -2)"
kill -9 $rm_pid
t=0; while kill -0 $rm_pid 2>/dev/null && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
kill -0 $rm_pid 2>/dev/null && fail "rmmod still waiting 10 s after SIGKILL"
lsmod | grep -q '^prd ' && fail "prd still loaded after the killed unload"
dmesg | grep -q 'region 0 0x100000000+0x10000000 leaked' || fail "no leak message: $(dmesg | tail -3)"
grep -q ': prd$' /proc/iomem || fail "the leaked region is not claimed any more"
echo "ok - rmmod waited for the pipe's pages, SIGKILL ended it, the region stays claimed"
$INSMOD $P map=256M@4G pages=devmap 2>/dev/null && fail "a leaked region loaded again"
kill $holder; wait $holder
sleep 1
echo "ok - the pipe closed after the unload, no splat; the leaked region is refused"

# 2. a stray put_page() on the second half of the NVDIMM
$INSMOD $P map=256M@0x110000000 pages=devmap || fail "load 2"
pfn=$(( (0x110000000 >> 12) + 100 ))
$INSMOD /top/net-tests/modules/page_put_test/page_put_test.ko pfn=$pfn || fail "page_put_test"
rmmod page_put_test
dmesg -c > /dev/null
rmmod prd || fail "rmmod 2"
dmesg | grep -q 'region 0: 1 pages below their base reference' || fail "no WARN on the underflow: $(dmesg | tail -3)"
dmesg | grep -q 'region 0 0x110000000+0x10000000 leaked' || fail "the region was not leaked"
echo "ok - a page below its base reference: WARN once, region leaked"
JOB
	vm_run A "$T" A.job 500 || return 1
	grep -a '^ok - ' "$T/A.serial.log"
	[ "$(grep -a -c '^ok - ' "$T/A.serial.log")" = 3 ] || { echo "expected 3 parts"; return 1; }
	# exactly the one deliberate WARN
	[ "$(grep -a -c 'WARNING: CPU' "$T/A.serial.log")" = 1 ] || { echo "expected exactly one WARN"; return 1; }
}
