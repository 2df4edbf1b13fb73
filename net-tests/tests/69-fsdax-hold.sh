# fs-DAX must not free a block while a pipe or a socket still holds its
# page (issue 22; mainline's busy-page fix, backported in
# mm-export-patch/<version>/fsdax-busy/). ext4 -o dax on prd pages=devmap
# (32 MiB): a process maps a 4 MiB file, takes references to its first
# 1 MiB through vmsplice() into a pipe or send(MSG_ZEROCOPY) to a
# loopback receiver that does not read (net-tests/tools/dax_hold.c),
# unmaps it and closes it. Then
# one layout operation: truncate to 0, punch the whole file, unlink its
# only name (eviction), or umount (eviction of every inode; then mount
# again and truncate the file, whose new inode has no entries to wait
# for). The filesystem is refilled by another file, the receiver released.
#
# Each case runs twice on one kernel, switched by the lab's debugfs knob
# (mm-export-patch/<version>/lab/):
#   fixed (Y)   the operation is still blocked after 2 s, it succeeds once
#               the receiver has read, every byte queued arrives and is the
#               first file's, dax_hold ends as it does unfixed (exit 0), and
#               the kernel logs no warning
#   unfixed (N) the operation does not wait, some delivered bytes are not
#               the first file's (the leak the fix closes: that this is
#               seen is what shows the test can fail) and the WARN_ON_ONCE
#               of dax_disassociate_entry() fires
# clear_warn_once is written before each case. The figures of both ways
# are printed for the report.
TEST_TIMEOUT=900
# the unfixed cases' WARN in dax_disassociate_entry() is expected (the job
# checks per case that it fires there and nowhere else); any other is not
TEST_SPLAT_ALLOW='cut here|WARNING: CPU: [0-9]+ PID: [0-9]+ at [^ ]*fs/dax\.c:[0-9]+ dax_disassociate_entry\+|Call Trace:'

test_run() {
	cat > "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
# a dax_hold that died must not kill the job at "echo go"
trap '' PIPE
KNOB=/sys/kernel/debug/fsdax_busy_fix
[ -e $KNOB ] || fail "no $KNOB: this kernel was built without mm-export-patch/*/lab/"
HOLD=/tmp/dax_hold
cp /top/net-tests/tools/bin/dax_hold $HOLD && chmod 0755 $HOLD || fail "dax_hold"
$INSMOD $PRD_KO map=32M@4G pages=devmap || fail "insmod prd"
mkdir -p /mnt
: > /work/cases

# fill: another file takes every free block (ends at ENOSPC); says
# whether it wrote anything. Bounded well below the hung-task timeout: a
# waiting unlink sits in D state meanwhile.
fill() {
	sync
	timeout 60 /tmp/randfill $((1 << 40)) > /mnt/fill 2> /dev/null
	sync
	[ -s /mnt/fill ] && echo yes || echo no
}

# blocks FILE [LAST]: FILE's physical blocks (of logical blocks 0..LAST),
# one "start end" line an extent
blocks() {
	filefrag -v "$1" | awk -v last="${2:--1}" '
	$1 ~ /^[0-9]+:$/ {
		split($2 $3, l, /\.+:?/); split($4 $5, p, /\.+:?/)
		if (last >= 0 && l[1] + 0 > last) next
		e = p[2] + 0
		if (last >= 0 && l[2] + 0 > last) e -= l[2] - last
		print p[1] + 0, e
	}'
}

# overlap A B: how many blocks the extent lists A and B share
overlap() {
	awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
	{ for (i = 1; i <= n; i++) { lo = $1 > s[i] ? $1 : s[i]; hi = $2 < e[i] ? $2 : e[i]; if (hi >= lo) c += hi - lo + 1 } }
	END { print c + 0 }' "$1" "$2"
}

# one_case PATH OP FIX: one line "PATH OP FIX key=value..." in /work/cases
# (the kernel log of the case is what follows its marker). OP sigtruncate
# is a truncate that gets SIGINT while it waits.
one_case() {
	path=$1 op=$2 fix=$3 case_name="$*"
	echo 1 > /sys/kernel/debug/clear_warn_once
	echo $fix > $KNOB
	mark="fsdax-hold: case $path $op $fix"
	echo "$mark" > /dev/kmsg
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 /mnt || fail "$case_name: ext4"
	randfill $((4 << 20)) > /mnt/f && sync || fail "$case_name: test file"
	blocks /mnt/f 255 > /tmp/held.blocks
	[ -s /tmp/held.blocks ] || fail "$case_name: no blocks of /mnt/f: $(filefrag -v /mnt/f)"
	rm -f /tmp/go /tmp/got /tmp/hold.out /tmp/op.rc /tmp/op.pid /tmp/fill.blocks
	mkfifo /tmp/go
	# dax_hold waits for a line on the fifo (fd 4 here, closed in every
	# other child: the fifo's end is what would release it)
	$HOLD $path /mnt/f 1M /tmp/got < /tmp/go > /tmp/hold.out 2>&1 & h=$!
	exec 4> /tmp/go
	wait_for 60 grep -q '^held ' /tmp/hold.out || fail "$case_name: no hold: $(cat /tmp/hold.out)"
	held=$(sed -n 's/^held //p' /tmp/hold.out)
	# the operation leaves its pid in /tmp/op.pid and its exit status in
	# /tmp/op.rc when it returns (kill -0 would see an unreaped child as
	# still running)
	case $op in
	truncate|sigtruncate) set -- truncate -s 0 /mnt/f ;;
	punch) set -- xfs_io -c 'fpunch 0 4m' /mnt/f ;;
	unlink) set -- rm /mnt/f ;;
	umount) set -- umount /mnt ;;
	esac
	(sh -c 'echo $$ > /tmp/op.pid; exec "$@"' op "$@"; echo $? > /tmp/op.rc) 4>&- &
	if [ $fix = Y ]; then
		sleep 2
	else
		# unfixed, nothing waits: bounded, for a slow guest
		wait_for 30 test -e /tmp/op.rc
	fi
	blocked=yes wchan=-
	[ -e /tmp/op.rc ] && blocked=no
	[ $blocked = yes ] && wchan=$(cat /proc/"$(cat /tmp/op.pid)"/wchan 2> /dev/null)
	size=-
	if [ $op = sigtruncate ]; then
		# the wait ends with the signal and frees nothing (TERM: a
		# background job of a script ignores SIGINT)
		kill -TERM "$(cat /tmp/op.pid)"
		wait_for 30 test -e /tmp/op.rc
		size=$(stat -c %s /mnt/f)
	fi
	filled=skip
	if [ $op = umount ] && [ $blocked = no ]; then
		# unmounted at once: the file's next inode has no entries to
		# wait for, its truncate frees the blocks
		mount -o dax /dev/pmem0 /mnt && truncate -s 0 /mnt/f 4>&- ||
			fail "$case_name: remount"
	fi
	# What the operation freed, another file takes. Not while an unmount
	# waits: it has freed nothing, /mnt is no longer its mount, and a
	# sync would wait for its s_umount.
	if [ $op != umount ] || [ $blocked = no ]; then
		filled=$(fill 4>&-)
		blocks /mnt/fill > /tmp/fill.blocks
	fi
	shared=-
	[ -e /tmp/fill.blocks ] && shared=$(overlap /tmp/held.blocks /tmp/fill.blocks)
	# still waiting when released: the wait did not end on its own
	[ $op != sigtruncate ] && [ $blocked = yes ] && [ -e /tmp/op.rc ] && blocked=ended
	echo go >&4
	exec 4>&-
	wait_for 60 grep -q '^delivered ' /tmp/hold.out
	wait $h
	holdrc=$?
	wait_for 60 test -e /tmp/op.rc || fail "$case_name: $op still blocked after the release"
	wait
	oprc=$(cat /tmp/op.rc)
	# "delivered BYTES DIFFER": DIFFER of them are not what the file held
	# when the references were taken
	delivered=$(sed -n 's/^delivered \([0-9]*\) [0-9]*$/\1/p' /tmp/hold.out)
	differ=$(sed -n 's/^delivered [0-9]* \([0-9]*\)$/\1/p' /tmp/hold.out)
	dmesg | sed -n "/$mark\$/,\$p" > /tmp/case.log
	warn=no
	grep -q 'WARNING: .* dax_disassociate_entry' /tmp/case.log && warn=yes
	other=$(grep 'WARNING: ' /tmp/case.log | grep -vc 'dax_disassociate_entry')
	echo "$path $op $fix held=$held delivered=${delivered:-none} differ=${differ:-none} shared=$shared blocked=$blocked wchan=${wchan:--} filled=$filled size=$size oprc=$oprc holdrc=$holdrc warn=$warn otherwarn=$other" >> /work/cases
	grep -q " /mnt " /proc/mounts && umount /mnt
	true
}

for fix in Y N; do
	for path in vmsplice zerocopy; do
		for op in truncate punch unlink umount; do
			one_case $path $op $fix
		done
	done
done
one_case vmsplice sigtruncate Y
echo Y > $KNOB
rmmod prd || fail "unload"
JOB
	vm_run A "$T" A.job 800 || return 1
	local path op fix rest kv bad=0 n=0 held delivered differ shared blocked wchan filled size oprc holdrc warn otherwarn
	while read -r path op fix rest; do
		n=$((n + 1))
		held='' delivered='' differ='' shared='' blocked='' wchan='' filled='' size='' oprc='' holdrc='' warn='' otherwarn=''
		for kv in $rest; do
			case $kv in
			held=*|delivered=*|differ=*|shared=*|blocked=*|wchan=*|filled=*|size=*|oprc=*|holdrc=*|warn=*|otherwarn=*)
				eval "${kv%%=*}=\${kv#*=}" ;;
			esac
		done
		echo "# $path $op $fix: $rest"
		# common to every fixed case: waited in the layout break (ext4's
		# callback sleeps for truncate and punch, dax_break_layout_final()
		# for eviction) until
		# released (or the signal), every queued byte arrived and is the
		# first file's, the sender saw what it sees unfixed, no warning;
		# and the refill (when there is one) got none of the held blocks
		if [ "$fix" = Y ] && [ "$blocked" = yes ] && [[ $wchan =~ ^(dax_break_layout|ext4_wait_dax_page) ]] &&
		   [ "$holdrc" = 0 ] && [ "${held:-0}" -gt 0 ] && [ "$delivered" = "$held" ] &&
		   [ "$differ" = 0 ] && [ "$warn" = no ] && [ "$otherwarn" = 0 ] &&
		   { [ "$filled" = yes ] && [ "$shared" = 0 ] || [ "$op" = umount ]; }; then
			if [ "$op" = sigtruncate ]; then
				# killed in the wait: failed, the file untouched
				if [ "$oprc" != 0 ] && [ "$size" = $((4 << 20)) ]; then
					echo "ok - fixed: $path, a truncate waiting in $wchan killed by SIGTERM: exit $oprc, the file still 4 MiB, $delivered bytes all the first file's"
					continue
				fi
			elif [ "$oprc" = 0 ]; then
				echo "ok - fixed: $path, $op waits in $wchan; $delivered of $held bytes arrive, all the first file's"
				continue
			fi
		elif [ "$fix" = N ] && [ "$blocked" = no ] && [ "$filled" = yes ] && [ "${shared:-0}" -gt 0 ] &&
		     [ "${differ:-0}" -gt 0 ] && [ "$warn" = yes ] && [ "$otherwarn" = 0 ] && [ "$holdrc" = 0 ]; then
			echo "ok - unfixed: $path, $op does not wait; the refill took $shared of the held blocks, $differ of $delivered bytes delivered are not the first file's"
			continue
		fi
		echo "not ok - $([ "$fix" = Y ] && echo fixed || echo "unfixed (the leak not seen)"): $path, $op: $rest"
		bad=1
	done < "$T/cases"
	[ "$n" = 17 ] || { echo "not ok - expected 17 cases, got $n"; bad=1; }
	return $bad
}
