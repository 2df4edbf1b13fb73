# nginx, unchanged, sends DAX files by reference (issue 23; the series
# mm-export-patch/6.12/dax-splice/, opt-in: fs.dax_splice_read 1, set by
# the job but for the copy round). Guest A: prd pages=devmap, ext4 -o
# dax (64 MiB), Debian's nginx with sendfile on. Guest B: http_stall
# (net-tests/tools/http_stall.c) asks for a 16 MiB file and reads nothing,
# so that nginx's response stalls in A's socket. Six rounds, each with a
# new file:
#   whole   by reference: prd's pages_referenced rises above 0 while B does
#           not read; B then reads the whole response: 200, 16 MiB, every
#           byte the file's
#   reset   by reference: prd's pages_referenced rises above 0 and the page
#           cache does not grow by the file; A truncates the file: it is
#           still waiting after 2 s, asleep in ext4_wait_dax_page, while
#           another file fills the filesystem; B resets the connection:
#           the truncate completes, no page stays referenced
#   read    the same, but B reads the response: what was queued when the
#           truncate began (nginx then finds the file truncated and
#           closes), every byte the first file's though the filesystem was
#           refilled meanwhile, and though, while the truncate waited,
#           rmmod of prd was tried (refused: the filesystem is mounted on
#           it) and memhog ran until the OOM killer ended it; the truncate
#           completes once B has read it
#   kill    the same, and nginx is killed (-9) while the truncate waits:
#           the orphaned socket still holds the pages (the truncate still
#           waits); B then reads what was queued: all of it the first
#           file's; nginx is started again
#   copy    fs.dax_splice_read 0: no page referenced during the stall,
#           the truncate does not wait, what B reads is the first file's
#   serve   pmem-zc serve (--body auto, pmem_zc not loaded) on a kernel
#           whose fs.dax_splice_read is 1: it says it sends by sendfile(2),
#           which the kernel sends by reference; pages referenced while B
#           stalls; B reads the whole 16 MiB intact; the access log counts
#           them as sendfile's (copied=)
# A kernel without the series (6.1) skips the test. DAX_SPLICE_ENTRIES=N
# runs it on the deliberately broken variant (the lab's
# /sys/kernel/debug/dax_splice_entries N: pages in the pipe without their
# mapping entries), where the truncates must be seen not to wait.
TEST_TIMEOUT=900
# the OOM killer's report of memhog (read round) has a call trace; every
# other pattern (WARNING, BUG, KASAN, lockdep...) still fails the test
TEST_SPLAT_ALLOW='Call Trace:'
DAX_SPLICE_ENTRIES=${DAX_SPLICE_ENTRIES:-Y}
ROUNDS="whole reset read kill copy serve"

test_run() {
	cat > "$T/A.job" <<JOB
ROUNDS="$ROUNDS" ENTRIES=$DAX_SPLICE_ENTRIES
JOB
	cat >> "$T/A.job" <<'JOB'
. /top/vm/guest/lib.sh
SCTL=/proc/sys/fs/dax_splice_read
if [ ! -e $SCTL ]; then
	check_skip "nginx sends DAX files by reference" "no $SCTL: a kernel without mm-export-patch/6.12/dax-splice/"
	touch /work/A.skip
	exit 0
fi
echo $ENTRIES > /sys/kernel/debug/dax_splice_entries || fail "dax_splice_entries"
REF=/sys/block/pmem0/prd/pages_referenced
$INSMOD $PRD_KO map=256M@4G pages=devmap || fail "insmod prd"
mkdir -p /mnt
mkfs.ext4 -q -F -b 4096 /dev/pmem0 64M && mount -o dax /dev/pmem0 /mnt || fail "ext4 -o dax"
nginx_conf /mnt
nginx_start || fail "nginx"
cached() { awk '/^Cached:/ {print $2}' /proc/meminfo; }
refs_up() { [ "$(cat $REF)" -gt 0 ]; }
# the truncate is still running, asleep in ext4's layout break
waiting() { [ ! -e /tmp/tr.rc ] && grep -qx ext4_wait_dax_page /proc/"$(cat /tmp/tr.pid)"/wchan; }
no_wait() { wait_for 2 test -e /tmp/tr.rc && [ "$(cat /tmp/tr.rc)" = 0 ] && [ "$(stat -c %s /mnt/f.$r)" = 0 ]; }
completes() { wait_for 30 test -e /tmp/tr.rc && [ "$(cat /tmp/tr.rc)" = 0 ] && [ "$(stat -c %s /mnt/f.$r)" = 0 ]; }
# fill: another file takes every free block (bounded; ENOSPC ends it)
fill() { timeout 60 /tmp/randfill $((1 << 30)) > /mnt/fill 2> /tmp/fill.err; grep -q 'No space left' /tmp/fill.err; }
# B's body: its first bytes are the file's as it was (all of it: WANT)
body_ok() { # ROUND WANT
	read -r _ st _ n sum < /work/B.got.$1
	[ "$st" = 200 ] || { echo "status $st"; return 1; }
	[ "$2" = any ] && [ "$n" -gt 0 ] || [ "$n" = "$2" ] || { echo "body $n bytes, expected $2"; return 1; }
	[ "$(head -c "$n" /tmp/orig | sha256sum | cut -d' ' -f1)" = "$sum" ] ||
		{ echo "the $n bytes B got are not the first file's"; return 1; }
}
for r in $ROUNDS; do
	echo $([ $r = copy ] && echo 0 || echo 1) > $SCTL
	randfill $((16 << 20)) > /mnt/f.$r && sync || fail "$r: file"
	cp /mnt/f.$r /tmp/orig
	if [ $r = serve ]; then
		$ZC serve --root /mnt --port 8081 --access-log /tmp/access > /tmp/serve.out 2>&1 &
		srv=$!
		wait_for 10 listening 8081 || fail "serve: $(cat /tmp/serve.out)"
		check "$r: pmem-zc serve chooses sendfile(2), by reference here" \
			grep -q 'bodies by sendfile(2), which this kernel sends by reference from DAX files' /tmp/serve.out
	fi
	c0=$(cached)
	touch /work/A.ready.$r
	wait_work B.stalled.$r 60 || fail "$r: B did not ask"
	if [ $r = copy ]; then
		sleep 2
		check "$r: no page referenced while the response stalls" test "$(cat $REF)" = 0
	else
		check "$r: the server's response holds pages of the file (pages_referenced > 0)" wait_for 20 refs_up
		echo "# $r: pages_referenced $(cat $REF) while B does not read"
		check "$r: page cache not grown by the file: $(( ($(cached) - c0) / 1024 )) MiB" test $(( $(cached) - c0 )) -lt 4096
	fi
	if [ $r = whole ] || [ $r = serve ]; then
		echo read > /work/A.release.$r
		wait_work B.got.$r 120 || fail "$r: B did not end"
		check "$r: B got the whole 16 MiB, all the file's" body_ok $r $((16 << 20))
		check "$r: no page referenced afterwards" wait_value 30 $REF 0
		if [ $r = serve ]; then
			kill -TERM $srv && wait $srv
			check "$r: the access log counts the body as sendfile's" \
				grep -q '"GET /f.serve HTTP/1.1" 200 16777216 .* by_ref=0 copied=16777216$' /tmp/access
		fi
		rm -f /mnt/f.$r
		continue
	fi
	rm -f /tmp/tr.rc /tmp/tr.pid
	(sh -c 'echo $$ > /tmp/tr.pid; exec truncate -s 0 "$1"' tr /mnt/f.$r; echo $? > /tmp/tr.rc) &
	if [ $r = copy ]; then
		check "$r: the truncate does not wait" no_wait
		check "$r: another file fills the filesystem" fill
	else
		sleep 2
		check "$r: the truncate waits in ext4_wait_dax_page" waiting
		check "$r: another file fills the filesystem meanwhile" fill
		check "$r: the truncate still waits" waiting
	fi
	if [ $r = read ]; then
		check "$r: rmmod prd refused while its pages are out (mounted)" \
			sh -c '! rmmod prd 2> /dev/null && grep -q "^prd " /proc/modules'
		o0=$(dmesg | grep -c 'Killed process [0-9]* (memhog)')
		sh -c 'echo 1000 > /proc/self/oom_score_adj; exec /top/net-tests/tools/bin/memhog' > /dev/null 2>&1 &
		hog=$!
		wait_for 120 sh -c "! kill -0 $hog 2> /dev/null" || kill -9 $hog
		wait $hog 2> /dev/null
		check "$r: memory pressure meanwhile: memhog ran until the OOM killer took it" \
			test "$(dmesg | grep -c 'Killed process [0-9]* (memhog)')" -gt "$o0"
		check "$r: the truncate still waits after it" waiting
	fi
	if [ $r = kill ]; then
		kill -9 $(cat /tmp/nginx/pid) $(pidof nginx)
		sleep 1
		check "$r: nginx killed, the truncate still waits for its socket's pages" waiting
	fi
	case $r in reset) echo reset ;; *) echo read ;; esac > /work/A.release.$r
	wait_work B.got.$r 120 || fail "$r: B did not end"
	check "$r: the truncate completes once B lets go" completes
	check "$r: no page referenced afterwards" wait_value 30 $REF 0
	[ $r = reset ] || check "$r: what B got is the first file's" body_ok $r any
	rm -f /mnt/fill /mnt/f.$r
	[ $r = kill ] && { nginx_start || fail "nginx again"; }
done
echo 0 > $SCTL
echo Y > /sys/kernel/debug/dax_splice_entries
nginx_stop
umount /mnt && rmmod prd || fail "teardown"
JOB
	cat > "$T/B.job" <<JOB
ROUNDS="$ROUNDS"
JOB
	cat >> "$T/B.job" <<'JOB'
. /top/vm/guest/lib.sh
STALL=/tmp/http_stall
cp /top/net-tests/tools/bin/http_stall $STALL && chmod 0755 $STALL || fail "http_stall"
for r in $ROUNDS; do
	wait_for 300 sh -c "test -e /work/A.ready.$r || test -e /work/A.skip" || fail "$r: A not ready"
	[ -e /work/A.skip ] && exit 0
	rm -f /tmp/ctl; mkfifo /tmp/ctl
	port=8080; [ $r = serve ] && port=8081
	$STALL $PEER_A:$port /f.$r /tmp/body < /tmp/ctl > /tmp/st 2>&1 & s=$!
	exec 4> /tmp/ctl
	wait_for 10 grep -q '^sent' /tmp/st || fail "$r: $(cat /tmp/st)"
	touch /work/B.stalled.$r
	wait_work A.release.$r 120 || fail "$r: A did not release"
	cat /work/A.release.$r >&4
	exec 4>&-
	wait $s || fail "$r: http_stall: $(cat /tmp/st)"
	if grep -q '^status' /tmp/st; then
		echo "$(grep '^status' /tmp/st) $(sha256sum < /tmp/body | cut -d' ' -f1)" > /work/B.got.$r
	else
		echo "reset" > /work/B.got.$r
	fi
done
JOB
	vm_run2 "$T" 800 || return 1
}
