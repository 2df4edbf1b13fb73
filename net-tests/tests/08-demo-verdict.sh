# Host only: the verdict of `make demo` (vm/demo-verdict.sh) over canned
# results folders. A good run exits 0 and ends "demo: done"; a mismatch, a
# missing result, a kernel splat in a serial log, a send or a copy that
# moved bytes by copy, a failed operation in the counters and a failed
# guest job each exit non-zero, and the last line says which.
TEST_TIMEOUT=60

# canned DIR: the folder of a good run over a tap link (64 MiB each way)
demo_canned() {
	local d=$1 sum=2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881
	mkdir -p "$d"
	echo tap > "$d/link"
	echo "67108864 $sum" > "$d/A.file"
	echo "67108864 $sum" > "$d/B.file"
	echo "67108864 ${sum/2d71/3e82}" > "$d/A.range"
	echo "67108864 ${sum/2d71/3e82}" > "$d/B.range"
	echo 0 > "$d/A.job.rc"
	echo 0 > "$d/B.job.rc"
	echo '169.254.77.2 - - [04/Dec/2026:16:00:00 +0000] "GET /demo.bin HTTP/1.1" 200 67108864 "-" "curl/7.88.1"' > "$d/A.access"
	echo 'pmem-zc serve: summary: requests=1 bytes=67108864 by_ref=67108864 copied=0 zero_copy=yes' > "$d/A.serve"
	echo 'curl: bytes=67108864 seconds=1.2 Bps=55924053' > "$d/B.fetch"
	echo 'summary: op=copy bytes=67108864 seconds=0.800 MBps=83.9 by_ref=67108864 copied=0 cpu_seconds=0.100 zero_copy=yes' > "$d/A.copy"
	printf '%s\n' 'sends 38' 'copies 1' 'bytes_ref 134217728' 'bytes_copied 0' \
		'err_inval 0' 'err_net 0' 'err_nobufs 0' 'err_other 0' > "$d/A.stats"
	printf '[    0.000000] Linux version 6.1\npmemzc-guest: job A.job exit 0\n' > "$d/A.serial.log"
	printf '[    0.000000] Linux version 6.1\npmemzc-guest: job B.job exit 0\n' > "$d/B.serial.log"
}

test_run() {
	local bad=0 d rc last
	# case NAME WANT-RC WANT-ERE [SETUP]: the verdict over a canned folder
	# changed by SETUP (shell code, $d the folder) exits WANT-RC and its
	# last line matches WANT-ERE
	case_() {
		d=$T/canned/$1	# deeper than the runner's splat scan
		rm -rf "$d"; demo_canned "$d"
		[ -z "${4:-}" ] || (cd "$d" && eval "$4")
		rc=0
		"$PMEMZC_TOP/vm/demo-verdict.sh" "$d" > "$d.out" 2>&1 || rc=$?
		last=$(tail -n 1 "$d.out")
		if [ "$rc" = "$2" ] && echo "$last" | grep -qE -- "$3"; then
			echo "ok - $1: exit $rc, '$last'"
		else
			echo "not ok - $1: exit $rc (want $2), last line '$last' (want /$3/)"
			bad=1
		fi
	}
	case_ good 0 '^demo: done, both transfers intact'
	[ "$(grep -c 'result: intact' "$T/canned/good.out")" = 2 ] &&
		grep -q 'serve on A: summary: requests=1' "$T/canned/good.out" &&
		grep -q 'copy on A: summary: op=copy' "$T/canned/good.out" &&
		grep -q 'access log on A: .*GET /demo.bin' "$T/canned/good.out" &&
		grep -q '^  err_net 0' "$T/canned/good.out" &&
		echo "ok - good: both 'result: intact' lines, the summaries, the access log and the counters printed" ||
		{ echo "not ok - good: the report lacks a line: $(tr '\n' '|' < "$T/canned/good.out")"; bad=1; }
	case_ mismatch 1 '^demo: FAILED: the served file: guest B.s bytes differ' \
		'echo "67108864 0000" > B.file'
	grep -q 'result: MISMATCH' "$T/canned/mismatch.out" && echo "ok - mismatch: 'result: MISMATCH' printed" ||
		{ echo "not ok - mismatch: no 'result: MISMATCH' line"; bad=1; }
	case_ no-range-on-B 1 '^demo: FAILED: the copied range: no result from guest B' 'rm B.range'
	case_ splat 1 "^demo: FAILED: kernel splat in the guests' logs" \
		'echo "[   12.345678] WARNING: CPU: 0 PID: 77 at mm/memremap.c:123 memremap_pages+0x1/0x2" >> A.serial.log'
	case_ splat-in-dmesg 1 "^demo: FAILED: kernel splat" \
		'echo "[   12.345678] BUG: KASAN: use-after-free in pzc_bio_end+0x10/0x20" > B.dmesg.log'
	case_ send-copied 1 '^demo: FAILED: the HTTP send: by_ref=0 copied=67108864, expected all 67108864 bytes by reference' \
		'echo "pmem-zc serve: summary: requests=1 bytes=67108864 by_ref=0 copied=67108864 zero_copy=no" > A.serve'
	case_ copy-copied 1 '^demo: FAILED: the copy: by_ref=1048576 copied=66060288' \
		'sed -i "s/by_ref=67108864 copied=0/by_ref=1048576 copied=66060288/" A.copy'
	case_ socket-link 0 '^demo: done, both transfers intact, the copy by reference, the send copied by the stack \(socket link\)' \
		'echo socket > link; echo "pmem-zc serve: summary: requests=1 bytes=67108864 by_ref=0 copied=67108864 zero_copy=no" > A.serve'
	case_ err-counter 1 '^demo: FAILED: operations failed: err_net=37' 'sed -i "s/^err_net 0/err_net 37/" A.stats'
	case_ job-failed 1 "^demo: FAILED: guest A's job exit 1: FAIL: copy: " \
		'echo 1 > A.job.rc; echo "FAIL: copy: EIO" >> A.serial.log'
	case_ job-unfinished 1 "^demo: FAILED: guest B's job did not finish" 'rm B.job.rc'
	case_ two-reasons 1 '^demo: FAILED: the served file: .*; operations failed: err_inval=1' \
		'echo "1 00" > B.file; sed -i "s/^err_inval 0/err_inval 1/" A.stats'
	return $bad
}
