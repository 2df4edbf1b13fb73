# pmem_zc send: a 64 MiB pmem range sent from A to a socat receiver on B
# arrives intact in each page mode and in copy mode. Over the tap link the
# page modes send everything by reference (0 bytes copied), the counter of
# device pages held by the network stack rises above zero during the send
# and is back to zero after; pages=none and --copy send by copy.
TEST_TIMEOUT=900

MODES="none sparse devmap devmap-dev devmap-copy"

test_run() {
	cat > "$T/B.job" <<JOB
. /top/vm/guest/lib.sh
for m in $MODES; do
	socat -u TCP-LISTEN:5001,reuseaddr - > /tmp/recv &
	wait_for 10 listening 5001 || fail "socat not listening"
	touch /work/B.ready.\$m
	wait \$! || fail "receiver \$m"
	echo "\$(stat -c %s /tmp/recv) \$(sha256sum < /tmp/recv | cut -d' ' -f1)" > /work/recv.\$m
	rm -f /tmp/recv
done
JOB
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
S=/sys/class/misc/pmem_zc/stats
for m in none sparse devmap devmap-dev devmap-copy; do
	case $m in
	none) args="pages=none" ;;
	sparse) args="pages=sparse" ;;
	devmap|devmap-copy) args="pages=devmap" ;;
	devmap-dev) args="pages=devmap memmap=dev" ;;
	esac
	copy=; [ $m = devmap-copy ] && copy=--copy
	load_zc map=512M@4G $args || fail "$m: load"
	head -c $((64 << 20)) /dev/urandom > /tmp/src
	dd if=/tmp/src of=/dev/pmem0 bs=1M seek=8 oflag=direct status=none || fail "$m: fill"
	echo "$(stat -c %s /tmp/src) $(sha256sum < /tmp/src | cut -d' ' -f1)" > /work/sent.$m
	rm /tmp/src
	wait_work B.ready.$m 120 || fail "$m: B not ready"
	$ZC send /dev/pmem0 --offset 8M --length 64M --to $PEER_B:5001 $copy > /tmp/out || fail "$m: send: $(cat /tmp/out)"
	cat /tmp/out
	grep '^summary:' /tmp/out | sed "s/^summary:/$m/" >> /work/summaries
	echo "$m $(cat $S/pages_held_max) $(cat $S/pages_held) $(cat /sys/block/pmem0/prd/pages_referenced)" >> /work/held
	rmmod pmem_zc || fail "$m: rmmod pmem_zc"
	rmmod prd || fail "$m: rmmod prd"
done
JOB
	vm_run2 "$T" 800 || return 1

	local m line by_ref copied max held ref bad=0
	for m in $MODES; do
		cmp -s "$T/sent.$m" "$T/recv.$m" || { echo "$m: sent $(cat "$T/sent.$m"), B got $(cat "$T/recv.$m")"; bad=1; continue; }
		line=$(grep "^$m " "$T/summaries")
		by_ref=$(echo "$line" | sed -n 's/.* by_ref=\([0-9]*\).*/\1/p')
		copied=$(echo "$line" | sed -n 's/.* copied=\([0-9]*\).*/\1/p')
		read -r _ max held ref < <(grep "^$m " "$T/held")
		case $m in
		none|devmap-copy)
			[ "$by_ref" = 0 ] && [ "$copied" = $((64 << 20)) ] || { echo "$m: expected all by copy: $line"; bad=1; } ;;
		*)
			if [ "$PMEMZC_NET" = tap ]; then
				[ "$copied" = 0 ] && [ "$by_ref" = $((64 << 20)) ] || { echo "$m: expected zero copy: $line"; bad=1; }
				[ "$max" -gt 0 ] || { echo "$m: pages_held_max stayed 0"; bad=1; }
			else
				echo "ok - $m: sent by reference, pages held during the send # SKIP socket link: no scatter-gather, the stack copies"
			fi ;;
		esac
		[ "$held" = 0 ] && [ "$ref" = 0 ] || { echo "$m: pages still held after the send: pmem_zc $held, prd $ref"; bad=1; }
		echo "# $m: $(echo "$line" | cut -d' ' -f2-) pages_held_max=$max"
	done
	return $bad
}
