# Host only: unit tests of the pmem-zc CLI (size and HOST:PORT parsing, the
# serve protocol's request parser, path sanitising) under ASan and UBSan.
TEST_TIMEOUT=120

test_run() {
	make -s -C "$PMEMZC_TOP/pmem-zc-demo/cli" check SANITIZE=1 > "$T/unit.tap" 2>&1
	local rc=$?
	grep -a '^not ok' "$T/unit.tap"
	tap_check "$T/unit.tap" || { tail -n 5 "$T/unit.tap"; return 1; }
	[ $rc -eq 0 ] || { tail -n 5 "$T/unit.tap"; echo "make check exit $rc"; return 1; }
	echo "# $(grep -c '^ok' "$T/unit.tap") CLI unit tests passed"
}
