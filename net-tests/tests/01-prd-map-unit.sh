# Host only: unit tests of prd's map= parser (pmem-driver/prd_map.c, the
# same file that is built into prd.ko), under ASan and UBSan.
TEST_TIMEOUT=120

test_run() {
	make -s -C "$PMEMZC_TOP/pmem-driver/tests" check > "$T/unit.tap" 2>&1
	local rc=$?
	grep -a '^not ok' "$T/unit.tap"
	tap_check "$T/unit.tap" || { tail -n 5 "$T/unit.tap"; return 1; }
	[ $rc -eq 0 ] || { tail -n 5 "$T/unit.tap"; echo "make check exit $rc"; return 1; }
	echo "# $(grep -c '^ok' "$T/unit.tap") parser unit tests passed"
}
