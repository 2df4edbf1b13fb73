# pmem_zc's ioctls fuzzed (issue 26, part 1): net-tests/tools/zc_fuzz.c,
# structure-aware, seeded, with a racer (close, dup2, shutdown, truncate,
# punch, unlink, partition rescans, fork, signals) and a completion reader
# beside two callers. The pool: prd disk and partitions, DAX files on ext4
# over prd, DAX files on XFS (a send or copy from one that succeeds fails
# the run: the module takes ext2/3/4 files only), files the racer
# truncates and unlinks, a disk whose partition table the racer re-reads
# (none of its partitions in the pool: done, under sends from the disk),
# a partition and
# a file that must not change (checksums
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
# call logs of a failing run are kept in the results. On the test kernel
# (CONFIG_GCOV_KERNEL; prd and pmem_zc built with gcov) the coverage the
# run reached: lines and functions of each module (gcov's counters, from
# every context: a send completes in softirq), each function in
# $T/coverage.txt, and every function of COVER_MUST run.
# FUZZ_SECS (120) and FUZZ_CALLS (100000): it stops at the first reached;
# FUZZ_SEED (the date's day number unless set) is printed to re-run it.
# make fuzz-kernel runs it with 1,000,000 calls and up to 1800 s.
FUZZ_SECS=${FUZZ_SECS:-120}
FUZZ_CALLS=${FUZZ_CALLS:-100000}
TEST_TIMEOUT=$((FUZZ_SECS + 480))
FUZZ_SEED=${FUZZ_SEED:-$(( $(date +%s) / 86400 ))}

# the paths a run has to reach, by function (gcov, the test kernel): a
# send by reference and copied, its completion from the stack's callback
# and from the work queue, a copy's bios and their completion, each kind
# of source (a disk, a file by bmap and by direct access), the completions
# read
COVER_MUST="pzc_send_ref pzc_send_copy pzc_send_callback pzc_send_work pzc_send_done
pzc_copy_batch pzc_copy_work pzc_copy_release pzc_src_get_file pzc_src_sync_bdev
pzc_src_direct pzc_src_extent pzc_read pzc_poll pzc_ctx_admit"
# (each a function of its own in gcov's data: one inlined before the
# instrumentation, as pzc_src_bmap is, has none)

# coverage MODDIR SRC...: per function of MODDIR's SRC files, "FILE
# FUNCTION LINES_RUN LINES" from the guest's .gcda in $T/gcov and the
# build's .gcno: gcov's annotated source of each file (its headers'
# inline functions are theirs, not the file's), a function's lines those
# from its record to the next one's (a static function inlined before the
# instrumentation has no record: its lines count in the function above it)
coverage() {
	local dir=$1 tmp f b
	shift
	tmp=$(mktemp -d)
	for f in "$@"; do
		b=$(basename "$f" .c)
		[ -e "$T/gcov/$b.gcda" ] && [ -e "$dir/$b.gcno" ] || continue
		cp "$T/gcov/$b.gcda" "$dir/$b.gcno" "$tmp/"
		(cd "$tmp" && gcov -b -o "$tmp" "$PMEMZC_TOP/$dir/$b.c" > /dev/null 2>&1)
		[ -e "$tmp/$b.c.gcov" ] || continue
		awk -v file="$b.c" '
			/^function / {
				fn = $2; sub(/\..*/, "", fn)
				if (!(fn in tot)) { order[++n] = fn; tot[fn] = run[fn] = 0 }
				next
			}
			/^(branch|call|unconditional) / || fn == "" { next }
			{
				c = substr($0, 1, index($0, ":") - 1); gsub(/ /, "", c)
				if (c == "-") next
				tot[fn]++
				if (c !~ /^(#####|=====|\$\$\$\$\$)$/) run[fn]++
			}
			END { for (i = 1; i <= n; i++) printf "%s %s %d %d\n", file, order[i], run[order[i]], tot[order[i]] }
		' "$tmp/$b.c.gcov"
	done
	rm -rf "$tmp"
}

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
load_zc map=256M@4G,256M@0x110000000,128M@0x120000000,64M@0x128000000 pages=devmap || fail "load"
# pmem0: p1 a copy target, p2 must not change (a copy past p1's end would
# land there), p3 opened write-only
printf 'label: dos\n2048,32768,L\n34816,32768,L\n67584,32768,L\n' | sfdisk -q /dev/pmem0 || fail "sfdisk"
wait_for 10 test -b /dev/pmem0p3 || fail "no partitions"
# pmem3: a source whose partitions no fd of the pool opens (a send from
# one to a stalled peer would hold it for minutes, and the block layer
# refuses to re-read the table of a disk with an open partition), so that
# the racer's re-reads of its table are done, under the sends from it
printf 'label: dos\n2048,32768,L\n34816,32768,L\n' | sfdisk -q /dev/pmem3 || fail "sfdisk pmem3"
wait_for 10 test -b /dev/pmem3p2 || fail "no partitions of pmem3"
randfill $((16 << 20)) > /dev/pmem0p2 || fail "fill p2"
mkfs.ext4 -q -F -b 4096 /dev/pmem1 && mkdir -p /mnt /mnt2 && mount -o dax /dev/pmem1 /mnt || fail "mkfs pmem1"
randfill $((4 << 20)) > /mnt/src || fail "src"
randfill $((1 << 20)) > /mnt/ro || fail "ro"
randfill $((4 << 20)) > /mnt/tsrc || fail "tsrc"
randfill $((1 << 20)) > /mnt/wfile || fail "wfile"
randfill $((1 << 20)) > /mnt/nobody && chown nobody:nogroup /mnt/nobody || fail "nobody's file"
chgrp nogroup /dev/pmem_zc && chmod 0660 /dev/pmem_zc || fail "group access"
mkdir /mnt/dir
# pmem2: DAX files on XFS too (below its 300 MB minimum the way fstests
# makes it, as 69 does)
TEST_DIR=/mnt3 TEST_DEV=/dev/pmem2 QA_CHECK_FS=1 mkfs.xfs -q -f -m reflink=0 /dev/pmem2 &&
	mkdir -p /mnt3 && mount -o dax /dev/pmem2 /mnt3 ||
	fail "mkfs pmem2"
randfill $((4 << 20)) > /mnt3/xsrc && randfill $((4 << 20)) > /mnt3/xtsrc || fail "xfs files"
mkfs.ext4 -q -F -b 4096 /dev/vda && mount /dev/vda /mnt2 || fail "vda fs"
randfill 65536 > /mnt2/nondax; randfill 65536 > /tmp/tmpfs-file; sync
truncate -s 16M /tmp/dst.img && losetup /dev/loop0 /tmp/dst.img || fail "loop0"
truncate -s 16M /tmp/swap.img && losetup /dev/loop1 /tmp/swap.img &&
	mkswap /dev/loop1 > /dev/null && swapon /dev/loop1 || fail "swap"
mkdir -p /tmp/fz
wait_work B.ready 120 || fail "B not ready"
ref0=$(cat /sys/class/misc/pmem_zc/stats/bytes_ref)
$FZ --peer $PEER_B --unpriv 65534:65534 --seed $SEED --calls $CALLS --secs $SECS --threads 2 --log /tmp/fz \
	--src /dev/pmem0 --src /mnt/src --src /dev/pmem1 --src /mnt/nobody --src /dev/pmem3 \
	--ro /dev/pmem0p2 --ro /mnt/ro \
	--wsrc /dev/pmem0p3 --wsrc /mnt/wfile \
	--dst /dev/pmem0p1 --dst /dev/loop0 \
	--nosrc /mnt3/xsrc --nodst /dev/loop1 --tsrc /mnt/tsrc --tsrc /mnt3/xtsrc \
	--misc /dev/vda --misc /mnt2/nondax --misc /tmp/tmpfs-file --misc /mnt/dir \
	> /work/fuzz.out 2>&1 &
fz=$!
# a fuzzer still there 60 s after its time is stuck: its threads' kernel
# stacks to the results, and B told to go (its resets free what waits on
# the stalled peer)
t=0
while kill -0 $fz 2> /dev/null; do
	if [ $t = $((SECS + 60)) ]; then
		for tk in /proc/$fz/task/*; do
			echo "== ${tk##*/} $(cat $tk/comm): $(cat $tk/wchan)"; cat $tk/stack
		done > /work/fuzz.stuck 2>&1
		touch /work/A.fuzzed
	fi
	sleep 1; t=$((t + 1))
done
wait $fz
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
umount /mnt /mnt2 /mnt3 || fail "umount"
rmmod pmem_zc && rmmod prd && echo unloaded > /work/unload || fail "rmmod"
# gcov's counters of both modules, kept after the unload (gcov_persist)
if [ -d /sys/kernel/debug/gcov ]; then
	mkdir -p /work/gcov
	find /sys/kernel/debug/gcov -name '*.gcda' | while read -r f; do
		cat "$f" > "/work/gcov/${f##*/}"
	done
fi
JOB
	} > "$T/A.job"
	VM_NVDIMM_SIZE=1G vm_run2 "$T" $((FUZZ_SECS + 380)) || return 1
	local out rc last
	out=$T/fuzz.out rc=$(cat "$T/fuzz.rc" 2> /dev/null)
	last=$(grep '^zc_fuzz: seed=' "$out")
	grep -a '^zc_fuzz: FAILURE' "$out" | head -20
	if [ -e "$T/fuzz.stuck" ]; then
		echo "not ok - the fuzzer was stuck 60 s after its time (its threads' stacks: $T/fuzz.stuck)"
		grep -A8 '^==' "$T/fuzz.stuck" | head -40
		return 1
	fi
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
	local racer
	racer=$(grep '^zc_fuzz: racer:' "$out")
	echo "# $racer"
	[[ $racer =~ unlinks=[1-9] ]] && [[ $racer =~ rescans=[1-9] ]] ||
		{ echo "not ok - the racer never unlinked a file or re-read a partition table"; return 1; }
	# a table re-read under the sends: the partitions deleted and made anew
	[[ $racer =~ rescans_done=[1-9] ]] ||
		{ echo "not ok - no partition table re-read was done (all EBUSY)"; return 1; }
	[[ $(grep '^zc_fuzz: errnos:' "$out") =~ \ EPERM=[1-9] ]] ||
		{ echo "not ok - no EPERM: the unprivileged caller never met the owner rule"; return 1; }
	[ -e "$T/unload" ] || { echo "not ok - the modules did not unload"; return 1; }
	echo "# $calls calls in $secs s, 0 failures, the read-only sources unchanged, both modules unloaded"
	cover || return 1
}

# the coverage figure: lines and functions run, per module (all of them in
# $T/coverage.txt); every function of COVER_MUST run
cover() {
	local m fn missing=
	if [ ! -d "$T/gcov" ]; then
		echo "# coverage not measured: this kernel has no CONFIG_GCOV_KERNEL (the test kernel has)"
		return 0
	fi
	{
		coverage pmem-zc-demo/module "$PMEMZC_TOP"/pmem-zc-demo/module/pzc_*.c
		coverage pmem-driver "$PMEMZC_TOP"/pmem-driver/prd_*.c
	} > "$T/coverage.txt"
	for m in pzc prd; do
		awk -v m="$m" 'index($1, m "_") == 1 { f++; l += $4; r += $3; if ($3 > 0) fr++ }
			END { if (f) printf "# coverage (gcov) %s: %d of %d functions run, %d of %d lines (%.1f %%)\n",
				m == "pzc" ? "pmem_zc" : "prd", fr, f, r, l, 100 * r / l }' "$T/coverage.txt"
	done
	grep -q '^pzc_' "$T/coverage.txt" ||
		{ echo "not ok - no gcov data for pmem_zc: was it built with PMEMZC_GCOV=y?"; return 1; }
	for fn in $COVER_MUST; do
		grep -q " $fn " "$T/coverage.txt" ||
			{ echo "not ok - COVER_MUST's $fn is no function in gcov's data (inlined?)"; return 1; }
		awk -v fn="$fn" '$2 == fn && $3 > 0 { ok = 1 } END { exit !ok }' "$T/coverage.txt" ||
			missing="$missing $fn"
	done
	[ -z "$missing" ] || { echo "not ok - never run:$missing"; return 1; }
	echo "# every path of COVER_MUST run ($(echo $COVER_MUST | wc -w) functions)"
}
