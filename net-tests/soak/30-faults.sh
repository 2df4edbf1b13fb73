# Soak: faults during transfers, each 10 x SOAK_SCALE times: the receiver
# killed mid-send; the receiver stalled (reads nothing) and then killed;
# nbd-server killed mid-copy; the link down for 10 s (guest A's tap, from
# the host) mid-send; rmmod of pmem_zc and prd tried mid-send. Each ends
# within a bound (a send fails within 60 s of its receiver's death, a copy
# within 90 s of nbd-server's), nothing stays in flight or referenced, and
# both modules unload at the end; a send or copy whose peer died fails, a
# send across the link outage completes. Figure: runs, hangs (goal 0),
# leaks (goal 0), wrong outcomes (goal 0).
TEST_TIMEOUT=3000
SOAK_SCALE=${SOAK_SCALE:-1}

test_run() {
	local runs=$((10 * SOAK_SCALE))
	cat > "$T/B.job" <<JOB
. /top/vm/guest/lib.sh
RUNS=$runs
JOB
	cat >> "$T/B.job" <<'JOB'
nbd_serve /dev/vda || fail "nbd-server"
touch /work/B.ready
# A asks for each fault with /work/ask.N: "rx-kill", "rx-stall", "nbd-kill", "sink"
n=1
while :; do
	wait_work ask.$n 900 || fail "no request $n"
	what=$(cat /work/ask.$n)
	case $what in
	end) break ;;
	rx-kill|sink)
		socat -u TCP-LISTEN:5001,reuseaddr /dev/null & rx=$!
		wait_for 10 listening 5001; touch /work/ready.$n
		if [ $what = rx-kill ]; then
			wait_work go.$n 120; sleep 2; kill -9 $rx
		else
			wait $rx
		fi ;;
	rx-stall)
		/top/net-tests/tools/bin/tcp_hold 5001 600 > /dev/null & rx=$!
		wait_for 10 listening 5001; touch /work/ready.$n
		wait_work go.$n 120; sleep 8; kill -9 $rx ;;
	nbd-kill)
		touch /work/ready.$n
		wait_work go.$n 120; sleep 3; kill -9 $(pidof nbd-server)
		nbd_serve /dev/vda || fail "nbd-server again" ;;
	esac
	touch /work/done.$n
	n=$((n + 1))
done
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
RUNS=$runs
JOB
	cat >> "$T/A.job" <<'JOB'
S=/sys/class/misc/pmem_zc/stats
load_zc map=512M@4G pages=devmap || fail "load"
wait_work B.ready 120 || fail "B not ready"
nbd_attach $PEER_B || fail "nbd-client"
n=1 hangs=0 leaks=0 runs=0 wrong=0
ask() { echo "$1" > /work/ask.$n; wait_work ready.$n 60 || fail "B not ready for $1"; }
settled() { # nothing in flight or referenced within 60 s
	wait_value 60 $S/ops_inflight 0 && wait_value 60 /sys/block/pmem0/prd/pages_referenced 0
}
# bounded CMD...: run CMD, killed after 120 s (a kill counts as a hang);
# its exit status
bounded() {
	local rc
	timeout -s KILL 120 "$@"
	rc=$?
	[ $rc = 137 ] && { hangs=$((hangs + 1)); echo "hang: $*"; }
	return $rc
}
# outcome WANT WHAT: WANT (fail or ok) is what the last bounded call had to
# give; anything else is counted and said
outcome() {
	local rc=$? got=ok
	[ $rc = 0 ] || got=fail
	[ $got = "$1" ] || { wrong=$((wrong + 1)); echo "$2: expected $1, got $got: $(tail -1 /tmp/o)"; }
}
for i in $(seq $RUNS); do
	for f in rx-kill rx-stall nbd-kill link-down rmmod; do
		runs=$((runs + 1))
		case $f in
		rx-kill|rx-stall)
			ask $f; touch /work/go.$n
			bounded $ZC send /dev/pmem0 --length 400M --to $PEER_B:5001 > /tmp/o 2>&1
			outcome fail "$f $i: the send" ;;
		nbd-kill)
			ask $f; touch /work/go.$n
			bounded $ZC copy /dev/pmem0 --length 200M --to /dev/nbd0 > /tmp/o 2>&1
			outcome fail "$f $i: the copy"
			nbd-client -d /dev/nbd0 > /dev/null
			wait_for 30 nbd_attach $PEER_B || fail "nbd-client again" ;;
		link-down)
			[ -e /work/no-tap ] && { runs=$((runs - 1)); continue; }
			ask sink; echo "$n" > /work/link.down
			# TCP retransmits once the link is back: the send completes
			bounded $ZC send /dev/pmem0 --length 64M --to $PEER_B:5001 > /tmp/o 2>&1
			outcome ok "$f $i: the send" ;;
		rmmod)
			ask sink
			$ZC send /dev/pmem0 --length 128M --to $PEER_B:5001 > /tmp/o 2>&1 & s=$!
			sleep 1
			rmmod pmem_zc 2>/dev/null && { echo "rmmod pmem_zc succeeded during a send"; leaks=$((leaks + 1)); }
			rmmod prd 2>/dev/null && { echo "rmmod prd succeeded during a send"; leaks=$((leaks + 1)); }
			t=0; while kill -0 $s 2>/dev/null && [ $t -lt 1200 ]; do sleep 0.1; t=$((t + 1)); done
			kill -0 $s 2>/dev/null && { kill -9 $s; hangs=$((hangs + 1)); echo "hang: send during rmmod"; }
			wait $s
			outcome ok "$f $i: the send beside the rmmod attempts" ;;
		esac
		wait_work done.$n 180 || fail "B never finished $f"
		settled || { leaks=$((leaks + 1)); echo "$f $i: left $(cat $S/ops_inflight) sends, $(cat /sys/block/pmem0/prd/pages_referenced) pages"; }
		n=$((n + 1))
	done
done
echo end > /work/ask.$n
nbd-client -d /dev/nbd0 > /dev/null
rmmod pmem_zc && rmmod prd || { leaks=$((leaks + 1)); echo "modules do not unload"; }
echo "$runs $hangs $leaks $wrong" > /work/figure
JOB
	# the host takes guest A's link down when the job asks (tap link only)
	[ "$PMEMZC_NET" = tap ] || touch "$T/no-tap"
	vm_start B "$T" B.job
	vm_start A "$T" A.job
	local seen=
	while vm_alive A "$T"; do
		if [ -e "$T/link.down" ] && [ "$(cat "$T/link.down")" != "$seen" ]; then
			seen=$(cat "$T/link.down")
			sleep 1
			ip link set pztapA down; sleep 10; ip link set pztapA up
		fi
		sleep 0.5
	done
	vm_wait A "$T" 60 A.job || return 1
	vm_wait B "$T" 300 B.job || return 1
	local runs hangs leaks wrong
	read -r runs hangs leaks wrong < "$T/figure"
	[ -e "$T/no-tap" ] && echo "ok - link down for 10 s # SKIP socket link: no tap to take down"
	echo "# soak-figure faults: runs=$runs hangs=$hangs leaks=$leaks wrong_outcomes=$wrong"
	[ "$hangs" = 0 ] && [ "$leaks" = 0 ] && [ "$wrong" = 0 ]
}
