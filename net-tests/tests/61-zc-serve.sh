# pmem-zc serve (HTTP/1.1): curl on B fetches files of 0, 1, 4095, 4096,
# 4097 bytes, 1 MiB + 1, 64 MiB and a sparse file from A's server, every
# body intact: on ext4 -o dax over pages=devmap, and on ext4 without DAX
# over pages=sparse. The access log has one combined-format line per
# request, with status 200 and the body's bytes: on DAX by reference (over
# the tap link none of them by copy); without DAX, which pmem_zc does not
# take as a source, all by sendfile() from the page cache. Afterwards nothing is in flight or referenced,
# and no err_* counter of pmem_zc moved (a full socket buffer is flow
# control, not a failure).
TEST_TIMEOUT=900

FILES="f0 f1 f4095 f4096 f4097 f1M1 f64M sparse"
ROUNDS="devmap sparse"

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
for r in devmap sparse; do
	opts=; [ $r = devmap ] && opts="-o dax"
	load_zc map=512M@4G pages=$r || fail "$r: load"
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount $opts /dev/pmem0 /mnt || fail "$r: mkfs/mount"
	for s in 0 1 4095 4096 4097; do head -c $s /dev/urandom > /mnt/f$s; done
	randfill $(((1 << 20) + 1)) > /mnt/f1M1 && randfill $((64 << 20)) > /mnt/f64M ||
		fail "$r: test files"
	# sparse: data, a 3 MiB hole, data, a hole up to 6 MiB + 5
	head -c 8192 /dev/urandom > /mnt/sparse
	head -c 12288 /dev/urandom | dd of=/mnt/sparse bs=4096 seek=$(((3 << 20) / 4096 + 2)) conv=notrunc status=none
	truncate -s $(((6 << 20) + 5)) /mnt/sparse
	sync
	for f in f0 f1 f4095 f4096 f4097 f1M1 f64M sparse; do
		echo "$f $(sha256sum < /mnt/$f | cut -d' ' -f1)" >> /work/sums.$r
	done
	$ZC serve --root /mnt --port 5002 --count 8 --access-log /work/access.$r > /work/serve.$r.out 2>&1 &
	srv=$!
	wait_for 10 listening 5002 || fail "$r: server not listening"
	touch /work/A.serving.$r
	wait $srv || { cat /work/serve.$r.out; fail "$r: serve failed"; }
	cat /work/serve.$r.out
	S=/sys/class/misc/pmem_zc/stats
	check "$r: no page referenced after serving" wait_value 30 /sys/block/pmem0/prd/pages_referenced 0
	echo "$r $(cat $S/ops_inflight) $(cat $S/bytes_inflight) $(cat /sys/block/pmem0/prd/pages_referenced)" > /work/stats.$r
	for e in $S/err_* $S/sends_partial; do echo "${e##*/} $(cat $e)"; done > /work/errs.$r
	umount /mnt && rmmod pmem_zc && rmmod prd || fail "$r: teardown"
done
JOB
	cat > "$T/B.job" <<JOB
. /top/vm/guest/lib.sh
for r in $ROUNDS; do
	wait_work A.serving.\$r 300 || fail "A not serving (\$r)"
	for f in $FILES; do
		curl -sS -f -o /tmp/got http://\$PEER_A:5002/\$f 2> /tmp/curl.err || { cat /tmp/curl.err; fail "\$r: curl \$f"; }
		echo "\$f \$(sha256sum < /tmp/got | cut -d' ' -f1)" >> /work/got.\$r
	done
done
JOB
	local r f bad=0 ops bytes ref line size by_ref copied
	vm_run2 "$T" 800 || return 1
	for r in $ROUNDS; do
		diff "$T/sums.$r" "$T/got.$r" || { echo "$r: files differ"; bad=1; }
		[ "$(grep -c '"GET /' "$T/access.$r")" = 8 ] || { echo "$r: $(grep -c '"GET /' "$T/access.$r") GET lines in the access log"; bad=1; }
		for f in $FILES; do
			line=$(grep " \"GET /$f HTTP/1.1\" " "$T/access.$r")
			read -r size by_ref copied < <(echo "$line" | sed -n 's/.*" 200 \([0-9]*\) .* by_ref=\([0-9]*\) copied=\([0-9]*\)$/\1 \2 \3/p')
			[ -n "$size" ] && [ $((by_ref + copied)) = "$size" ] || { echo "$r: $f: access log line: $line"; bad=1; continue; }
			if [ $r = sparse ] && [ "$by_ref" != 0 ]; then
				echo "$r: $f: $by_ref bytes by reference from a file that is not DAX"; bad=1
			elif [ $r = devmap ] && [ "$PMEMZC_NET" = tap ] && [ "$copied" != 0 ]; then
				echo "$r: $f: $copied bytes copied over tap"; bad=1
			fi
		done
		if [ $r = sparse ]; then
			echo "ok - $r: files on ext4 without DAX served by sendfile(), none through pmem_zc"
		elif [ "$PMEMZC_NET" = tap ]; then
			echo "ok - $r: every body byte by reference"
		else
			echo "ok - $r: no body byte copied # SKIP socket link: no scatter-gather, the stack copies"
		fi
		read -r _ ops bytes ref < "$T/stats.$r"
		[ "$ops" = 0 ] && [ "$bytes" = 0 ] && [ "$ref" = 0 ] ||
			{ echo "$r: after serving: $ops sends and $bytes bytes in flight, $ref pages referenced"; bad=1; }
		# flow control (a full socket buffer) is not a failure
		line=$(awk '$1 ~ /^err_/ && $2 != 0' "$T/errs.$r" | tr '\n' ' ')
		if [ -s "$T/errs.$r" ] && [ -z "$line" ]; then
			echo "ok - $r: every err_* counter 0 after serving ($(grep sends_partial "$T/errs.$r"))"
		else
			echo "not ok - $r: err_* counters after serving: ${line:-none read}"
		fi
		echo "# $r: 8 files intact on B; $(grep -o 'summary:.*' "$T/serve.$r.out")"
	done
	return $bad
}
