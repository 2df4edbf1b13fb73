# Sends complete through the network stack's zero-copy completion, not by
# polling page counts. 16 sends in flight from one process on a
# non-blocking socket, completions reaped while later ones are queued, all
# bytes intact on B. Another user's reference on a page being sent (the
# test module page_ref_test holds one, as a GUP pin would) does not stall
# the send. A process killed with sends in flight leaks nothing: once the
# receiver is gone the sends complete, nothing stays in flight or
# referenced, and both modules unload; while they are in flight rmmod is
# refused. Where the stack would copy, pmem_zc copies itself (MC-safe):
# a receiver on this host, a kTLS socket; where the stack still copies
# pages it took (a packet tap on the device, a receiver behind veth in
# another network namespace), the completion says so
# (PMEM_ZC_C_STACK_COPIED) and the bytes count as copied.
TEST_TIMEOUT=900

test_run() {
	cat > "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
# 1. the 16 sends; 2. the held page; 3. a receiver that stalls, then dies
socat -u TCP-LISTEN:5001,reuseaddr - > /tmp/r1 & r1=$!
socat -u TCP-LISTEN:5002,reuseaddr - > /tmp/r2 & r2=$!
/top/net-tests/tools/bin/tcp_hold 5003 600 > /tmp/r3 & r3=$!
socat -u TCP-LISTEN:5006,reuseaddr /dev/null &
wait_for 10 listening 5003 || fail "receivers"
touch /work/B.ready
wait $r1; echo "$(stat -c %s /tmp/r1) $(sha256sum < /tmp/r1 | cut -d' ' -f1)" > /work/recv.1
wait $r2; echo "$(stat -c %s /tmp/r2) $(sha256sum < /tmp/r2 | cut -d' ' -f1)" > /work/recv.2
wait_work A.killed 300 || fail "A never killed its sender"
kill $r3
touch /work/B.r3gone
wait_work A.done 300
JOB
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
BIN=/top/net-tests/tools/bin
S=/sys/class/misc/pmem_zc/stats
load_zc map=256M@4G pages=devmap || fail "load"
put /dev/pmem0 0 $((64 << 20)) > /tmp/S64 || fail "fill"
wait_work B.ready 120 || fail "B not ready"

# 1. 16 in flight, completions interleaved
$BIN/zc_sendtest inflight /dev/pmem0 $PEER_B:5001 $((64 << 20)) > /work/inflight || fail "inflight: $(cat /work/inflight)"
cat /work/inflight
echo "$((64 << 20)) $(cat /tmp/S64)" > /work/sent.1

# 2. a page of the range referenced by someone else all along
$INSMOD /top/net-tests/modules/page_ref_test/page_ref_test.ko pfn=$(( (0x100000000 >> 12) + 10 )) op=get || fail "page_ref_test"
t0=$(date +%s)
$ZC send /dev/pmem0 --length 16M --to $PEER_B:5002 > /tmp/out 2>&1 || fail "send with a held page: $(cat /tmp/out)"
echo "held page: sent in $(($(date +%s) - t0)) s: $(cat /tmp/out)"
rmmod page_ref_test
echo "$((16 << 20)) $(get /dev/pmem0 0 $((16 << 20)))" > /work/sent.2

# 3. killed with sends in flight
$BIN/zc_sendtest hold /dev/pmem0 $PEER_B:5003 $((64 << 20)) > /tmp/hold & h=$!
wait_for 30 grep -q queued /tmp/hold || fail "hold: $(cat /tmp/hold)"
sleep 1
[ "$(cat $S/ops_inflight)" -ge 1 ] || fail "no send in flight"
rmmod pmem_zc 2>/dev/null && fail "pmem_zc unloaded with sends in flight"
rmmod prd 2>/dev/null && fail "prd unloaded with sends in flight"
kill -9 $h; wait $h 2>/dev/null
touch /work/A.killed
wait_work B.r3gone 120 || fail "B's receiver never went"
check "no send in flight after the receiver went" wait_value 60 $S/ops_inflight 0
[ "$(cat $S/bytes_inflight)" = 0 ] || fail "$(cat $S/bytes_inflight) bytes still accounted"
check "no page referenced after the receiver went" wait_value 30 /sys/block/pmem0/prd/pages_referenced 0
echo "killed: $(cat /tmp/hold); in flight after: 0 sends, 0 bytes, 0 pages"

# 4. where the stack would copy: a local receiver, kTLS; a packet tap
sc0=$(cat $S/bytes_stack_copied)
socat -u TCP-LISTEN:5004,reuseaddr,bind=127.0.0.1 /dev/null & l=$!
wait_for 10 listening 5004
$ZC send /dev/pmem0 --length 4M --to 127.0.0.1:5004 > /tmp/local 2>&1 || fail "local send: $(cat /tmp/local)"
wait $l
grep -q ' by_ref=0 copied=4194304 ' /tmp/local || fail "local receiver: $(cat /tmp/local)"
[ "$(cat $S/bytes_stack_copied)" = "$sc0" ] || fail "the stack copied for a local receiver"
modprobe tls || fail "modprobe tls"
socat -u TCP-LISTEN:5005,reuseaddr,bind=127.0.0.1 /dev/null & l=$!
wait_for 10 listening 5005
$BIN/zc_sendtest ktls /dev/pmem0 127.0.0.1:5005 $((1 << 20)) > /tmp/ktls || fail "ktls: $(cat /tmp/ktls)"
wait $l
grep -qx 'by_ref 0' /tmp/ktls && grep -qx 'copied 1048576' /tmp/ktls && grep -qx 'stack_copied 0' /tmp/ktls || fail "kTLS: $(cat /tmp/ktls)"
echo "copies: local $(grep -o 'by_ref=.*copied=[0-9]*' /tmp/local), kTLS $(grep -E '^(by_ref|copied)' /tmp/ktls | tr '\n' ' ')"
$BIN/pkt_tap eth0 60 > /tmp/tap 2>&1 & tap=$!
wait_for 10 grep -q tapping /tmp/tap || fail "pkt_tap: $(cat /tmp/tap)"
$ZC send /dev/pmem0 --length 4M --to $PEER_B:5006 > /tmp/tapped 2>&1 || fail "send under a tap: $(cat /tmp/tapped)"
kill $tap
echo "tapped: $(grep -o 'by_ref=.*copied=[0-9]*' /tmp/tapped) stack_copied=$(($(cat $S/bytes_stack_copied) - sc0))" > /work/tapped
# a receiver behind veth in another namespace: the route has scatter-
# gather, so the pages go; the receive path copies them (skb_orphan_frags_rx())
IP=/usr/bin/ip
mkdir -p /run/netns
$IP netns add rx && $IP link add vethA type veth peer name vethB && $IP link set vethB netns rx &&
	$IP addr add 169.254.78.1/24 dev vethA && $IP link set vethA up &&
	$IP -n rx addr add 169.254.78.2/24 dev vethB && $IP -n rx link set vethB up && $IP -n rx link set lo up ||
	fail "veth pair"
sc1=$(cat $S/bytes_stack_copied)
$IP netns exec rx socat -u TCP-LISTEN:5007,reuseaddr /dev/null & l=$!
wait_for 10 $IP netns exec rx sh -c '. /top/vm/guest/lib.sh; listening 5007' || fail "no receiver in netns rx"
$ZC send /dev/pmem0 --length 4M --to 169.254.78.2:5007 > /tmp/veth 2>&1 || fail "send over veth: $(cat /tmp/veth)"
wait $l
echo "veth: $(grep -o 'by_ref=.*copied=[0-9]*' /tmp/veth) stack_copied=$(($(cat $S/bytes_stack_copied) - sc1))" > /work/veth
$IP link del vethA; $IP netns del rx
touch /work/A.done
rmmod pmem_zc && rmmod prd || fail "unload"
echo "both modules unloaded"
JOB
	vm_run2 "$T" 800 || return 1
	local i bad=0 v
	for i in 1 2; do
		cmp -s "$T/sent.$i" "$T/recv.$i" || { echo "not ok - send $i: sent $(cat "$T/sent.$i"), B got $(cat "$T/recv.$i")"; bad=1; }
	done
	v() { awk -v k="$1" '$1 == k {print $2}' "$T/inflight"; }
	[ "$(v sends)" -ge 16 ] && [ "$(v completions)" = "$(v sends)" ] && [ "$(v cookies_unique)" = 1 ] &&
		[ "$(v bytes)" = $((64 << 20)) ] && [ "$(v reaped_while_queueing)" -ge 1 ] ||
		{ echo "not ok - 16 in flight: $(tr '\n' ' ' < "$T/inflight")"; bad=1; }
	if [ "$PMEMZC_NET" = tap ]; then
		[ "$(v copied)" = 0 ] || { echo "not ok - 16 in flight: $(v copied) bytes copied over tap"; bad=1; }
	else
		echo "ok - no byte copied # SKIP socket link: no scatter-gather, the stack copies"
	fi
	[ $bad = 0 ] || return 1
	echo "ok - $(v sends) sends in flight, $(v reaped_while_queueing) completions reaped while queueing, B got 64 MiB intact"
	echo "ok - a send with a page of the range held by someone else completed in $(grep -a 'held page: sent in' "$T/A.serial.log" | sed 's/.*sent in \([0-9]*\) s.*/\1/') s"
	echo "ok - $(grep -a '^killed:' "$T/A.serial.log" | sed 's/^killed: //')"
	echo "ok - pmem_zc copies itself: $(grep -a '^copies:' "$T/A.serial.log" | sed 's/^copies: //')"
	if grep -q '^veth: by_ref=0 copied=4194304 stack_copied=4194304$' "$T/veth"; then
		echo "ok - a receiver behind veth in another namespace: the stack copied, and the completion said so: $(cat "$T/veth")"
	else
		echo "not ok - a receiver behind veth: $(cat "$T/veth" 2>/dev/null), expected by_ref=0 copied=4194304 stack_copied=4194304"; bad=1
	fi
	if [ "$PMEMZC_NET" != tap ]; then
		echo "ok - a packet tap makes the stack copy # SKIP socket link: no scatter-gather, nothing to tap"
	elif grep -q '^tapped: by_ref=0 copied=4194304 stack_copied=4194304$' "$T/tapped"; then
		echo "ok - under a packet tap the stack copied, and the completion said so: $(cat "$T/tapped")"
	else
		echo "not ok - under a packet tap: $(cat "$T/tapped")"; return 1
	fi
}
