# pmem_zc's ioctls fuzzed (issue 26, part 1): net-tests/tools/zc_fuzz.c,
# structure-aware, seeded, with a racer (close, dup2, shutdown, truncate,
# punch, fork, signals) and a completion reader beside two callers. The
# pool: prd disk and partitions, DAX files on ext4 over prd, a file the
# racer truncates, a partition and a file that must not change (checksums
# before and after), a write-only partition and file (a source read(2)
# refuses), copy targets (a prd partition, a loop device), an active swap
# device (write(2) refuses it: ETXTBSY), a non-prd disk, a tmpfs file, a
# directory, and the fuzzer's own sockets, pipes, eventfd, memfd, io_uring,
# closed numbers and /dev/pmem_zc; and TCP sockets to guest B (`zc_fuzz
# --serve`: a sink that reads, a listener that never accepts), the only
# ones whose sends go by reference (loopback copies), so that completions
# come from the stack's callback in softirq and from processes that reset
# and disconnect them. The second caller runs as nobody (--unpriv) on a
# /dev/pmem_zc of its own (group access, 0660, as the package's udev rule
# gives): root's files are refused to it (EPERM, the owner rule), a file
# of nobody's is not; a send of root's read-only file from it fails the
# run. Then B's listeners close (the stalled connections
# reset) and both modules unload (no reference left). Passes with 0
# failures, 0 changed bytes, bytes sent by reference, and no splat; the
# call logs of a failing run are kept in the results.
# FUZZ_SECS (120) and FUZZ_CALLS (100000): it stops at the first reached;
# FUZZ_SEED (the date's day number unless set) is printed to re-run it.
# make fuzz-kernel runs it with 1,000,000 calls and up to 1800 s.
FUZZ_SECS=${FUZZ_SECS:-120}
FUZZ_CALLS=${FUZZ_CALLS:-100000}
TEST_TIMEOUT=$((FUZZ_SECS + 480))
FUZZ_SEED=${FUZZ_SEED:-$(( $(date +%s) / 86400 ))}

test_run() {
	{
		echo "SECS=$FUZZ_SECS"
		cat <<'JOB'
. /top/vm/guest/lib.sh
/top/net-tests/tools/bin/zc_fuzz --serve $((SECS + 600)) > /tmp/serve.out 2>&1 & srv=$!
wait_for 10 listening 5012 || fail "zc_fuzz --serve"
touch /work/B.ready
wait_work A.fuzzed $((SECS + 300)) || fail "A's fuzzer never ended"
kill $srv; wait $srv 2> /dev/null
true
JOB
	} > "$T/B.job"
	{
		echo "SECS=$FUZZ_SECS CALLS=$FUZZ_CALLS SEED=$FUZZ_SEED"
		cat <<'JOB'
. /top/vm/guest/lib.sh
FZ=/top/net-tests/tools/bin/zc_fuzz
load_zc map=256M@4G,256M@0x110000000 pages=devmap || fail "load"
# pmem0: p1 a copy target, p2 must not change (a copy past p1's end would
# land there), p3 opened write-only
printf 'label: dos\n2048,32768,L\n34816,32768,L\n67584,32768,L\n' | sfdisk -q /dev/pmem0 || fail "sfdisk"
wait_for 10 test -b /dev/pmem0p3 || fail "no partitions"
randfill $((16 << 20)) > /dev/pmem0p2 || fail "fill p2"
mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mkdir -p /mnt /mnt2 && mount -o dax /dev/pmem1 /mnt || fail "mkfs pmem1"
randfill $((4 << 20)) > /mnt/src || fail "src"
randfill $((1 << 20)) > /mnt/ro || fail "ro"
randfill $((4 << 20)) > /mnt/tsrc || fail "tsrc"
randfill $((1 << 20)) > /mnt/wfile || fail "wfile"
randfill $((1 << 20)) > /mnt/nobody && chown nobody:nogroup /mnt/nobody || fail "nobody's file"
chgrp nogroup /dev/pmem_zc && chmod 0660 /dev/pmem_zc || fail "group access"
mkdir /mnt/dir
mkfs.ext4 -q -F -b 4096 /dev/vda && mount /dev/vda /mnt2 || fail "vda fs"
randfill 65536 > /mnt2/nondax; randfill 65536 > /tmp/tmpfs-file; sync
truncate -s 16M /tmp/dst.img && losetup /dev/loop0 /tmp/dst.img || fail "loop0"
truncate -s 16M /tmp/swap.img && losetup /dev/loop1 /tmp/swap.img &&
	mkswap /dev/loop1 > /dev/null && swapon /dev/loop1 || fail "swap"
mkdir -p /tmp/fz
wait_work B.ready 120 || fail "B not ready"
ref0=$(cat /sys/class/misc/pmem_zc/stats/bytes_ref)
$FZ --peer $PEER_B --unpriv 65534:65534 --seed $SEED --calls $CALLS --secs $SECS --threads 2 --log /tmp/fz \
	--src /dev/pmem0 --src /mnt/src --src /dev/pmem1 --src /mnt/nobody \
	--ro /dev/pmem0p2 --ro /mnt/ro \
	--wsrc /dev/pmem0p3 --wsrc /mnt/wfile \
	--dst /dev/pmem0p1 --dst /dev/loop0 \
	--nodst /dev/loop1 --tsrc /mnt/tsrc \
	--misc /dev/vda --misc /mnt2/nondax --misc /tmp/tmpfs-file --misc /mnt/dir \
	> /work/fuzz.out 2>&1
echo $? > /work/fuzz.rc
echo $(( $(cat /sys/class/misc/pmem_zc/stats/bytes_ref) - ref0 )) > /work/by_ref
touch /work/A.fuzzed
cat /work/fuzz.out
[ "$(cat /work/fuzz.rc)" = 0 ] || cp -r /tmp/fz /work/calls
# every send's pages released (B's listener gone: the stalled ones reset)
# and its source let go: then the filesystem unmounts, no reference left,
# both modules unload
wait_value 60 /sys/class/misc/pmem_zc/stats/ops_inflight 0 || fail "sends in flight"
swapoff /dev/loop1; losetup -d /dev/loop1 /dev/loop0
umount /mnt /mnt2 || fail "umount"
rmmod pmem_zc && rmmod prd && echo unloaded > /work/unload || fail "rmmod"
JOB
	} > "$T/A.job"
	vm_run2 "$T" $((FUZZ_SECS + 380)) || return 1
	local out rc last
	out=$T/fuzz.out rc=$(cat "$T/fuzz.rc" 2> /dev/null)
	last=$(grep '^zc_fuzz: seed=' "$out")
	grep -a '^zc_fuzz: FAILURE' "$out" | head -20
	[ -n "$last" ] || { echo "not ok - no summary line"; tail -5 "$out"; return 1; }
	echo "# $last"
	echo "# $(grep '^zc_fuzz: errnos:' "$out")"
	[ "$rc" = 0 ] && [[ $last =~ failures=0$ ]] ||
		{ echo "not ok - fuzz failures (seed $FUZZ_SEED; call logs in $T/calls)"; return 1; }
	[[ $last =~ ro_checked=2\ ro_changed=0 ]] ||
		{ echo "not ok - the read-only sources were not all checked unchanged"; return 1; }
	[[ $last =~ calls=([0-9]+)\ secs=([0-9.]+) ]] || return 1
	local calls=${BASH_REMATCH[1]} secs=${BASH_REMATCH[2]}
	[ "$calls" -ge "$FUZZ_CALLS" ] || [ "${secs%.*}" -ge $((FUZZ_SECS - 1)) ] ||
		{ echo "not ok - stopped early: $calls calls in $secs s"; return 1; }
	[[ $last =~ sends_ok=[1-9] ]] && [[ $last =~ copies_ok=[1-9] ]] ||
		{ echo "not ok - no send or no copy succeeded: the fuzzer reached no success path"; return 1; }
	[ "$(cat "$T/by_ref" 2> /dev/null || echo 0)" -gt 0 ] ||
		{ echo "not ok - no byte went by reference: the callback's completions were not reached"; return 1; }
	echo "# $(cat "$T/by_ref") bytes by reference to B"
	[[ $(grep '^zc_fuzz: errnos:' "$out") =~ \ EPERM=[1-9] ]] ||
		{ echo "not ok - no EPERM: the unprivileged caller never met the owner rule"; return 1; }
	[ -e "$T/unload" ] || { echo "not ok - the modules did not unload"; return 1; }
	echo "# $calls calls in $secs s, 0 failures, the read-only sources unchanged, both modules unloaded"
}
