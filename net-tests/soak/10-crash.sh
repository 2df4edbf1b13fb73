# Soak: crash consistency. 10 x SOAK_SCALE QEMU SIGKILLs per mode, at a
# random moment (3 to 12 s into fsync-heavy work), on ext4 -o dax over prd
# pages=devmap and on ext4 without DAX over pages=sparse: files written
# with O_SYNC and with fsync (each once, under a name of its own), and
# files replaced by rename over an fsynced copy and a directory fsync.
# After the call returns, the guest appends the file's name and checksum to
# a manifest on the host (9p, written through); a rename is announced as
# pending first. After each kill the next boot mounts and checks every
# file of the manifest: an O_SYNC or fsynced file whole, a renamed one
# its last recorded version or one announced after it (a name never
# recorded may also be absent); then unmounts, runs
# e2fsck -fn, and starts the next round.
# Figure: kills, fsynced files (and checks of them: each boot checks all
# so far), lost (goal 0), e2fsck failures (goal 0).
TEST_TIMEOUT=3000
SOAK_SCALE=${SOAK_SCALE:-1}

# the job of one boot: check what the manifest says, then work until killed
crash_job() { # MODE FIRST BOOT
	cat <<JOB
. /top/vm/guest/lib.sh
M=$1 FIRST=$2 K=$3
JOB
	cat <<'JOB'
opts=; [ $M = devmap ] && opts="-o dax"
$INSMOD /top/pmem-driver/prd.ko map=256M@4G pages=$M || fail "load"
mkdir -p /mnt
if [ $FIRST = 1 ]; then
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 || fail "mkfs"
	: > /work/manifest.$M
fi
mount $opts /dev/pmem0 /mnt || { echo "mount failed" >> /work/check.$M; fail "mount"; }
# every file whose call returned is whole; a renamed one is its last
# recorded version or one announced after it (each boot killed between a
# rename and its record leaves one more pending); a name never recorded
# ("-") may also be absent
checked=0 lost=0
awk '$1 == "pending" { p[$2] = p[$2] " " $3; next } { last[$1] = $2; delete p[$1] }
     END { for (f in last) print f, last[f] p[f]; for (f in p) if (!(f in last)) print f, "-" p[f] }' \
	/work/manifest.$M > /tmp/expect
while read -r f sums; do
	checked=$((checked + 1))
	got=$(sha256sum < /mnt/$f 2>/dev/null | cut -d' ' -f1)
	ok=0
	[ -z "$got" ] && [ "${sums%% *}" = - ] && ok=1
	for s in $sums; do [ "$got" = "$s" ] && ok=1; done
	[ $ok = 1 ] || { lost=$((lost + 1)); echo "lost $f"; }
done < /tmp/expect
umount /mnt
e2fsck -fn /dev/pmem0 > /tmp/fsck 2>&1 && fsck=0 || { fsck=1; tail -5 /tmp/fsck; }
echo "checked $checked lost $lost fsck $fsck" >> /work/check.$M
mount $opts /dev/pmem0 /mnt || fail "remount"
touch /work/working
i=0
while :; do
	i=$((i + 1))
	head -c $(( (i % 7 + 1) * 24576 )) /dev/urandom > /tmp/d
	s=$(sha256sum < /tmp/d | cut -d' ' -f1)
	case $((i % 3)) in
	0) /usr/bin/dd if=/tmp/d of=/mnt/sync$K.$i oflag=sync status=none && echo "sync$K.$i $s" >> /work/manifest.$M ;;
	1) /usr/bin/dd if=/tmp/d of=/mnt/fsync$K.$i conv=fsync status=none && echo "fsync$K.$i $s" >> /work/manifest.$M ;;
	2) n=ren$((i % 20))
	   /usr/bin/dd if=/tmp/d of=/mnt/tmp.$i conv=fsync status=none || continue
	   echo "pending $n $s" >> /work/manifest.$M
	   mv /mnt/tmp.$i /mnt/$n && sync /mnt && echo "$n $s" >> /work/manifest.$M ;;
	esac
done
JOB
}

test_run() {
	local m k kills=0 checked=0 lost=0 fsck=0 first line
	for m in devmap sparse; do
		first=1
		for k in $(seq $((10 * SOAK_SCALE))); do
			crash_job $m $first $k > "$T/$m.$k.job"
			rm -f "$T/working"
			vm_start A "$T" $m.$k.job
			vm_wait_file "$T" working 180 || { vm_kill A "$T" KILL; echo "$m boot $k never worked"; return 1; }
			sleep $((3 + RANDOM % 10))
			vm_kill A "$T" KILL
			kills=$((kills + 1))
			first=0
		done
		# the last round: check only
		crash_job $m 0 last | sed '/^touch \/work\/working$/,$d' > "$T/$m.last.job"
		vm_run A "$T" $m.last.job 300 || { echo "$m: the final check failed"; return 1; }
	done
	local files=0
	for m in devmap sparse; do
		# the first check of each mode is of a fresh filesystem; each
		# later one checks every file recorded so far again
		while read -r _ c _ l _ f; do
			checked=$((checked + c)); lost=$((lost + l)); fsck=$((fsck + f))
		done < <(grep '^checked' "$T/check.$m")
		files=$((files + $(grep '^checked' "$T/check.$m" | tail -1 | cut -d' ' -f2)))
	done
	echo "# soak-figure crash: kills=$kills fsynced_files=$files file_checks=$checked lost=$lost e2fsck_failures=$fsck"
	[ $lost = 0 ] && [ $fsck = 0 ] && [ $checked -gt 0 ]
}
