#!/usr/bin/env bash
# make demo: boots guest A (pmem host) and guest B (peer) on their private
# link and sends a 64 MiB pmem range from A to B, checked by sha256 on both
# sides. Today the range is read through the upstream nd_pmem driver and
# sent with socat (a copying send): the baseline that prd + pmem_zc replace.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
vm_enter_netns "$0" "$@"
vm_net_init

T=$PMEMZC_TOP/results/demo-$(date +%Y%m%d-%H%M%S)
mkdir -p "$T"
ln -sfn "$(basename "$T")" "$PMEMZC_TOP/results/latest-demo"
MIB=64

cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
socat -u TCP-LISTEN:5001,reuseaddr - > /tmp/recv &
wait_for 10 listening 5001 || fail "socat not listening"
touch /work/B.ready
wait $! || fail "receiver"
echo "$(stat -c %s /tmp/recv) $(sha256sum < /tmp/recv | cut -d' ' -f1)" > /work/B.result
JOB
cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
modprobe nd_pmem && modprobe nfit || fail "modprobe"
wait_for 30 test -b /dev/pmem0 || fail "no /dev/pmem0"
# fill the range once; the NVDIMM keeps it across boots
dd if=/dev/urandom of=/dev/pmem0 bs=1M count=$MIB oflag=direct 2>/dev/null
echo "\$(( $MIB << 20 )) \$(dd if=/dev/pmem0 bs=1M count=$MIB 2>/dev/null | sha256sum | cut -d' ' -f1)" > /work/A.result
wait_work B.ready 120 || fail "B not ready"
wait_for 30 ping -c1 -W1 \$PEER_B || fail "no link"
t0=\$(date +%s%N)
dd if=/dev/pmem0 bs=1M count=$MIB iflag=direct 2>/dev/null | socat -u - TCP:\$PEER_B:5001 || fail "send"
echo \$(( (\$(date +%s%N) - t0) / 1000 )) > /work/A.usec
JOB

say "booting guest B (peer) and guest A (pmem host), link: $PMEMZC_NET, logs: $T"
vm_start B "$T" B.job
vm_start A "$T" A.job
rca=0 rcb=0
vm_wait A "$T" 300 A.job || rca=$?
vm_wait B "$T" 60 B.job || rcb=$?
if [ $rca -ne 0 ] || [ $rcb -ne 0 ]; then
	say "demo failed (guest A exit $rca, guest B exit $rcb); serial logs in $T"
	exit 1
fi
read -r abytes asum < "$T/A.result"
read -r bbytes bsum < "$T/B.result"
usec=$(cat "$T/A.usec")
echo
echo "pmem range on guest A : $abytes bytes  sha256 $asum"
echo "received on guest B   : $bbytes bytes  sha256 $bsum"
awk -v b="$abytes" -v u="$usec" -v n="$PMEMZC_NET" 'BEGIN {
	printf "summary: %d bytes in %.2f s = %.1f MB/s over %s, by copy (nd_pmem + socat), 0 bytes by reference\n",
	       b, u / 1e6, b / u, n }'
if [ "$asum" = "$bsum" ] && [ "$abytes" = "$bbytes" ]; then
	echo "result: intact"
else
	echo "result: MISMATCH"; exit 1
fi
