# pmem_zc send: a 32 MiB pmem range sent from A to a socat receiver on B
# arrives intact in each page mode and in copy mode. Over the tap link the
# page modes send everything by reference (0 bytes copied, as the
# completions report), prd's count of pages referenced by someone else
# rises above zero during the send (the stack holds the pmem pages) and is
# back to zero after, with no send or byte left in flight; pages=none and
# --copy send by copy. On Debian's own kernels (FLAVOUR=debian) pages=sparse
# is not built: its load must be refused in one line, and the other modes
# are sent.
TEST_TIMEOUT=900

test_run() {
	local MODES="none sparse devmap devmap-dev devmap-copy"
	[ "$PMEMZC_FLAVOUR" = debian ] && MODES="none devmap devmap-dev devmap-copy"
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
	printf 'FLAVOUR=%s MODES="%s"\n' "$PMEMZC_FLAVOUR" "$MODES" > "$T/A.job"
	cat >> "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
S=/sys/class/misc/pmem_zc/stats
if [ "$FLAVOUR" = debian ]; then
	check "pages=sparse refused on Debian's kernel, in one line" sparse_refused map=512M@4G || fail "sparse refusal"
fi
for m in $MODES; do
	case $m in
	none) args="pages=none" ;;
	sparse) args="pages=sparse" ;;
	devmap|devmap-copy) args="pages=devmap" ;;
	devmap-dev) args="pages=devmap memmap=dev" ;;
	esac
	copy=; [ $m = devmap-copy ] && copy=--copy
	if [ $m = devmap-dev ]; then
		# memmap=dev lays the region out anew: only over a head with nothing in it
		$INSMOD $PRD_KO map=512M@4G && /usr/bin/dd if=/dev/zero of=/dev/pmem0 bs=1M count=16 oflag=direct status=none &&
			rmmod prd || fail "clear the head"
	fi
	load_zc map=512M@4G $args || fail "$m: load"
	randfill $((32 << 20)) > /tmp/src || fail "$m: test data"
	dd if=/tmp/src of=/dev/pmem0 bs=1M seek=8 oflag=direct status=none || fail "$m: fill"
	echo "$(stat -c %s /tmp/src) $(sha256sum < /tmp/src | cut -d' ' -f1)" > /work/sent.$m
	rm /tmp/src
	wait_work B.ready.$m 120 || fail "$m: B not ready"
	# the most pages of the disk referenced at once, sampled during the send
	( max=0; while [ ! -e /tmp/sent ]; do
		n=$(cat /sys/block/pmem0/prd/pages_referenced); [ "$n" -gt "$max" ] && max=$n
		echo $max > /tmp/held.max; sleep 0.1; done ) & sampler=$!
	$ZC send /dev/pmem0 --offset 8M --length 32M --to $PEER_B:5001 $copy > /tmp/out || fail "$m: send: $(cat /tmp/out)"
	touch /tmp/sent; wait $sampler; rm /tmp/sent
	cat /tmp/out
	grep '^summary:' /tmp/out | sed "s/^summary:/$m/" >> /work/summaries
	check "$m: no page referenced once the send completed" wait_value 30 /sys/block/pmem0/prd/pages_referenced 0
	echo "$m $(cat /tmp/held.max) $(cat $S/ops_inflight) $(cat $S/bytes_inflight) $(cat /sys/block/pmem0/prd/pages_referenced)" >> /work/held
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
		read -r _ max ops bytes ref < <(grep "^$m " "$T/held")
		case $m in
		none|devmap-copy)
			[ "$by_ref" = 0 ] && [ "$copied" = $((32 << 20)) ] || { echo "$m: expected all by copy: $line"; bad=1; } ;;
		*)
			if [ "$PMEMZC_NET" = tap ]; then
				[ "$copied" = 0 ] && [ "$by_ref" = $((32 << 20)) ] || { echo "$m: expected zero copy: $line"; bad=1; }
				[ "$max" -gt 0 ] || { echo "$m: no page referenced during the send"; bad=1; }
			else
				echo "ok - $m: sent by reference, pages held during the send # SKIP socket link: no scatter-gather, the stack copies"
			fi ;;
		esac
		[ "$ops" = 0 ] && [ "$bytes" = 0 ] && [ "$ref" = 0 ] ||
			{ echo "$m: after the send: $ops sends and $bytes bytes in flight, $ref pages referenced"; bad=1; }
		echo "# $m: $(echo "$line" | cut -d' ' -f2-) pages_referenced_max=$max"
	done
	return $bad
}
