# Host only: unit tests of prd's map= parser (pmem-driver/prd_map.c) and
# NFIT walker (pmem-driver/prd_nfit.c: crafted tables with flush hints and
# unarmed NVDIMMs, which QEMU never builds), the same files that are built
# into prd.ko, under ASan and UBSan.
TEST_TIMEOUT=180

test_run() {
	local t rc bad=0
	for t in map nfit; do
		make -s -C "$PMEMZC_TOP/pmem-driver/tests" check-$t > "$T/$t.tap" 2>&1
		rc=$?
		grep -a '^not ok' "$T/$t.tap"
		tap_check "$T/$t.tap" || { tail -n 5 "$T/$t.tap"; bad=1; continue; }
		[ $rc -eq 0 ] || { tail -n 5 "$T/$t.tap"; echo "make check-$t exit $rc"; bad=1; continue; }
		echo "# $(grep -c '^ok' "$T/$t.tap") $t unit tests passed"
	done
	return $bad
}
