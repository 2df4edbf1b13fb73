# Soak: everything at once for 5 x SOAK_SCALE minutes, every byte checked:
# 8 pmem-zc send streams to guest B (each loops over 8 MiB ranges of
# /dev/pmem1, B compares each stream's bytes with the range's checksum),
# pmem-zc copy of 16 MiB ranges to B's disk over NBD (B reads each back),
# fio passes with verify on /dev/pmem2, and pmem-zc serve (HTTP) to 16 curl
# clients on B fetching files of ext4 -o dax on /dev/pmem0. Afterwards
# nothing is in flight or referenced and both modules unload.
# Figure: bytes moved, mismatches (goal 0), splats (goal 0: the runner's
# scan), pages held after (goal 0).
TEST_TIMEOUT=1500
SOAK_SCALE=${SOAK_SCALE:-1}

test_run() {
	local secs=$((300 * SOAK_SCALE))
	cat > "$T/B.job" <<JOB
. /top/vm/guest/lib.sh
SECS=$secs
JOB
	cat >> "$T/B.job" <<'JOB'
nbd_serve /dev/vda || fail "nbd-server"
# 8 stream receivers, a connection each round: its size and checksum
cat > /tmp/recv.sh <<'SH'
f=$(mktemp)
cat > $f
echo "$1 $(stat -c %s $f) $(sha256sum < $f | cut -d' ' -f1)" >> /work/streams.B
rm -f $f
SH
for s in 0 1 2 3 4 5 6 7; do
	socat -u TCP-LISTEN:$((5100 + s)),reuseaddr,fork SYSTEM:"sh /tmp/recv.sh $s" &
	wait_for 10 listening $((5100 + s)) || fail "receiver $s"
done
touch /work/B.ready
wait_work A.serving 300 || fail "A not serving"
end=$(( $(date +%s) + SECS ))
curls=
for c in $(seq 16); do
	( n=0; while [ $(date +%s) -lt $end ]; do
		f=f$(( (c + n) % 32 ))
		curl -sS -f -o /tmp/c$c http://$PEER_A:8080/$f || { echo "curl $f failed" >> /work/curl.bad; exit 1; }
		echo "$f $(sha256sum < /tmp/c$c | cut -d' ' -f1) $(stat -c %s /tmp/c$c)" >> /work/curl.B
		n=$((n + 1))
	done ) &
	curls="$curls $!"
done
for p in $curls; do wait $p; done
wait_work A.done $((SECS + 300)) || fail "A never finished"
sleep 3	# the last receiver writes its line
JOB
	cat > "$T/A.job" <<JOB
. /top/vm/guest/lib.sh
SECS=$secs
JOB
	cat >> "$T/A.job" <<'JOB'
load_zc map=128M@4G,256M@0x108000000,128M@0x118000000 pages=devmap || fail "load"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt && mount -o dax /dev/pmem0 /mnt || fail "ext4 dax"
for i in $(seq 0 31); do head -c $(( (i + 1) * 65536 + i )) /dev/urandom > /mnt/f$i; done
sync
for i in $(seq 0 31); do echo "f$i $(sha256sum < /mnt/f$i | cut -d' ' -f1)" >> /work/files; done
put /dev/pmem1 0 $((256 << 20)) > /dev/null || fail "fill pmem1"
for r in $(seq 0 31); do echo "$r $(get /dev/pmem1 $((r * (8 << 20))) $((8 << 20)))" >> /work/ranges; done
wait_work B.ready 120 || fail "B not ready"
$ZC serve --root /mnt --port 8080 --access-log /dev/null > /tmp/serve.out 2>&1 & srv=$!
wait_for 10 listening 8080 || fail "serve"
touch /work/A.serving
end=$(( $(date +%s) + SECS ))
# 8 senders: stream s sends range (s + round) % 32
senders=
for s in 0 1 2 3 4 5 6 7; do
	( r=0; while [ $(date +%s) -lt $end ]; do
		g=$(( (s + r) % 32 ))
		$ZC send /dev/pmem1 --offset $((g * 8))M --length 8M --to $PEER_B:$((5100 + s)) > /tmp/snd$s 2>&1 ||
			{ echo "send $s $r failed: $(tail -1 /tmp/snd$s)" >> /work/send.bad; exit 1; }
		echo "$s $r $g" >> /work/streams.A
		r=$((r + 1))
	done ) &
	senders="$senders $!"
done
# copies to B's disk over NBD, read back on A through nbd with O_DIRECT
nbd_attach $PEER_B || fail "nbd-client"
( c=0; while [ $(date +%s) -lt $end ]; do
	g=$((c % 16))
	$ZC copy /dev/pmem1 --offset $((g * 16))M --length 16M --dst-offset $((g * 16))M --to /dev/nbd0 --flush > /tmp/cp 2>&1 ||
		{ echo "copy $c failed: $(tail -1 /tmp/cp)" >> /work/copy.bad; exit 1; }
	[ "$(get /dev/nbd0 $((g * 16 << 20)) $((16 << 20)) direct)" = "$(get /dev/pmem1 $((g * 16 << 20)) $((16 << 20)))" ] ||
		echo "copy $c: range $g differs on B" >> /work/copy.bad
	echo "$c" >> /work/copies
	c=$((c + 1))
done ) &
cp=$!
# fio: one pass of random writes over 128 MiB then its verify, again
# until the end (a time_based verify job would verify blocks it overwrote)
fios=0
while [ $(date +%s) -lt $end ]; do
	fio --name=v --filename=/dev/pmem2 --ioengine=psync --direct=1 --rw=randwrite --bsrange=4k-256k \
	    --size=128M --randrepeat=0 --verify=crc32c --verify_fatal=1 > /tmp/fio 2>&1 ||
		{ tail -5 /tmp/fio; echo "fio verify failed" >> /work/fio.bad; break; }
	fios=$((fios + 1))
done
echo $fios > /work/fio.passes
wait $cp
for p in $senders; do wait $p; done
nbd-client -d /dev/nbd0 > /dev/null
touch /work/A.done
sleep 5
kill -TERM $srv; wait $srv
S=/sys/class/misc/pmem_zc/stats
wait_value 60 $S/ops_inflight 0 || echo "in flight after: $(cat $S/ops_inflight)" >> /work/held
# a completion is not the stack's last page reference: wait for each disk
held=0
for d in pmem0 pmem1 pmem2; do
	wait_value 30 /sys/block/$d/prd/pages_referenced 0 >> /work/held
	held=$((held + $(cat /sys/block/$d/prd/pages_referenced)))
done
echo "$held" > /work/held.count
echo "$(cat $S/bytes_ref) $(cat $S/bytes_copied)" > /work/bytes
umount /mnt && rmmod pmem_zc && rmmod prd || echo "unload failed" >> /work/held
JOB
	vm_run2 "$T" $((secs + 900)) $((secs + 600)) || return 1
	local bad=0 mism=0 moved n
	for f in send.bad copy.bad fio.bad curl.bad held; do
		[ ! -s "$T/$f" ] || { sed "s/^/$f: /" "$T/$f"; bad=1; }
	done
	# each stream: the checksums B received are those of the ranges A sent
	local st
	for st in 0 1 2 3 4 5 6 7; do
		awk -v s=$st '$1 == s {print $3}' "$T/streams.A" | while read -r g; do
			awk -v g=$g '$1 == g {print $2}' "$T/ranges"
		done | sort > "$T/want.$st"
		awk -v s=$st '$1 == s && $2 == 8388608 {print $3}' "$T/streams.B" | sort > "$T/got.$st"
		cmp -s "$T/want.$st" "$T/got.$st" || {
			mism=$((mism + $(diff "$T/want.$st" "$T/got.$st" | grep -c '^[<>]')))
			echo "stream $st: sent $(grep -c . "$T/want.$st") ranges, B got $(grep -c . "$T/got.$st") intact"; }
	done
	while read -r f sum size; do
		[ "$sum" = "$(awk -v f=$f '$1 == f {print $2}' "$T/files")" ] || { mism=$((mism + 1)); echo "http $f: $sum"; }
	done < "$T/curl.B"
	n=$(grep -c . "$T/streams.A")
	moved=$(( n * 8 + $(grep -c . "$T/copies") * 16 + $(cat "$T/fio.passes") * 128 +
		  $(awk '{s += $3} END {print int(s / 1048576)}' "$T/curl.B") ))
	echo "# soak-figure concurrency: minutes=$((secs / 60)) MiB_moved=$moved stream_rounds=$n http_requests=$(grep -c . "$T/curl.B") copies=$(grep -c . "$T/copies") fio_passes=$(cat "$T/fio.passes") mismatches=$mism pages_held_after=$(cat "$T/held.count")"
	[ $bad = 0 ] && [ $mism = 0 ] && [ "$(cat "$T/held.count")" = 0 ] && [ "$n" -gt 0 ]
}
