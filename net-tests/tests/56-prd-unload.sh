# Unloading prd while pages of a region are still referenced, in devmap and
# sparse mode. (1) Someone holds a page beyond the disk's life (the
# test-only module page_ref_test takes a reference, as an skb or a pipe
# buffer would, with no dependency on prd): rmmod waits and says so,
# SIGKILL ends the wait, the module goes and the region is leaked (still
# claimed, memmap in place); the holder's put afterwards is no splat and
# the leaked region cannot be loaded again. (2) devmap: a page put once too
# often (page_ref_test op=put, a stray put_page()) is seen at unload: one
# WARN naming the region, and the region is leaked too.
TEST_TIMEOUT=600
# (2) provokes exactly this WARN on purpose
TEST_SPLAT_ALLOW='cut here|WARNING: CPU: [0-9]+ PID: [0-9]+ at .*pmem-driver/prd_main.c:[0-9]+ |Call Trace:'

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
P=/top/pmem-driver/prd.ko
REF=/top/net-tests/modules/page_ref_test/page_ref_test.ko
# 1. a held page at unload: 4G in devmap, 4G + 128M in sparse
for m in devmap sparse; do
	case $m in devmap) base=0x100000000 ;; sparse) base=0x108000000 ;; esac
	$INSMOD $P map=128M@$base pages=$m || fail "$m: load"
	pfn=$(( (base >> 12) + 100 ))
	$INSMOD $REF pfn=$pfn op=get || fail "$m: page_ref_test"
	[ "$(cat /sys/block/pmem0/prd/pages_referenced)" = 1 ] || fail "$m: pages_referenced $(cat /sys/block/pmem0/prd/pages_referenced)"
	dmesg -c > /dev/null
	rmmod prd & rm_pid=$!
	sleep 4
	kill -0 $rm_pid 2>/dev/null || fail "$m: rmmod returned while a page was referenced"
	dmesg | grep -q 'region 0: waiting for 1 referenced pages' || fail "$m: the wait says nothing: $(dmesg | tail -2)"
	kill -9 $rm_pid
	t=0; while kill -0 $rm_pid 2>/dev/null && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
	kill -0 $rm_pid 2>/dev/null && fail "$m: rmmod still waiting 10 s after SIGKILL"
	lsmod | grep -q '^prd ' && fail "$m: prd still loaded after the killed unload"
	dmesg | grep -q "region 0 $base+0x8000000 leaked" || fail "$m: no leak message: $(dmesg | tail -3)"
	grep -q ': prd$' /proc/iomem || fail "$m: the leaked region is not claimed any more"
	echo "ok - $m: rmmod waited for the held page, SIGKILL ended it, the region stays claimed"
	rmmod page_ref_test || fail "$m: the holder does not unload"
	$INSMOD $P map=128M@$base pages=$m 2>/dev/null && fail "$m: a leaked region loaded again"
	echo "ok - $m: the holder let go after the unload, no splat; the leaked region is refused"
done

# 2. a stray put_page() on a devmap page: 4G + 256M
base=0x110000000
$INSMOD $P map=128M@$base pages=devmap || fail "load 2"
$INSMOD $REF pfn=$(( (base >> 12) + 100 )) op=put || fail "page_ref_test op=put"
rmmod page_ref_test
dmesg -c > /dev/null
rmmod prd || fail "rmmod 2"
dmesg | grep -q 'region 0: 1 pages below their base reference' || fail "no WARN on the underflow: $(dmesg | tail -3)"
dmesg | grep -q "region 0 $base+0x8000000 leaked" || fail "the region was not leaked"
echo "ok - devmap: a page below its base reference: WARN once, region leaked"
JOB
	vm_run A "$T" A.job 500 || return 1
	grep -a '^ok - ' "$T/A.serial.log"
	[ "$(grep -a -c '^ok - ' "$T/A.serial.log")" = 5 ] || { echo "expected 5 parts"; return 1; }
	# exactly the one deliberate WARN
	[ "$(grep -a -c 'WARNING: CPU' "$T/A.serial.log")" = 1 ] || { echo "expected exactly one WARN"; return 1; }
}
