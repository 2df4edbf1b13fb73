# Host only: libFuzzer over serve's request path without sockets (issue 26,
# part 3; pmem-zc-demo/cli/fuzz/fuzz_http.c, "make fuzz" there): request
# bytes into http_parse(), files_open() under a root with symbolic links in
# and out, Range parsing, conditionals, the response head, under ASan and
# UBSan, from the seeds in fuzz/seeds, for HTTP_FUZZ_SECONDS (30). Fails on
# any crash, sanitizer report or broken property (a file opened outside
# the root, a range outside the file, a ".." in a path to serve).
TEST_TIMEOUT=300

test_run() {
	local secs=${HTTP_FUZZ_SECONDS:-30} line
	make -s -C "$PMEMZC_TOP/pmem-zc-demo/cli" fuzz FUZZ_SECONDS="$secs" > "$T/fuzz.out" 2>&1
	local rc=$?
	line=$(grep '^fuzz: [0-9]* executions' "$T/fuzz.out")
	[ $rc -eq 0 ] || { tail -n 40 "$T/fuzz.out"; echo "make fuzz exit $rc"; return 1; }
	[[ $line == *", 0 crashes, exit 0" ]] || { cat "$T/fuzz.out"; echo "no clean summary line"; return 1; }
	echo "ok - $secs s of fuzzing: ${line#fuzz: }"
}
