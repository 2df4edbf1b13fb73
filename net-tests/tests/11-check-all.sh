# Host only: make check-all (net-tests/check) over stand-ins for make, the
# kernel builds and the runner. Its last line adds both runs up and its exit
# status agrees with it in every case: all passing; a failed test on 6.12;
# the 6.1 background build failing (the 6.12 run must not wait for it and
# still counts); the runner interrupted (the status of the signal, never a
# success); a runner that exits non-zero with no failed test; make failing
# for either kernel.
TEST_TIMEOUT=60

test_run() {
	local s=$T/top env out rc last want bad=0
	mkdir -p "$s/net-tests" "$s/vm"
	cp "$PMEMZC_TOP/net-tests/check" "$s/net-tests/"
	printf 'all deps kernel:\n\t@[ -z "$(FAILMAKE)" ] || [ "$(FAILMAKE)" != "$(KERNEL)" ]\n' > "$s/Makefile"
	printf '#!/bin/bash\nsleep 1; [ "${FAILBG:-}" != 1 ]\n' > "$s/vm/build-kernel.sh"
	cp "$s/vm/build-kernel.sh" "$s/vm/build-initramfs.sh"
	cat > "$s/net-tests/run" <<'RUN'
#!/bin/bash
case "$PMEMZC_KERNEL:${RUNMODE:-}" in
*:int) echo "3 passed, 0 failed"; exit 130 ;;
6.12:fail) echo "35 passed, 1 failed"; exit 1 ;;
*:silent) echo "5 passed, 0 failed"; exit 1 ;;
6.12:*) echo "36 passed, 0 failed" ;;
6.1:*) echo "13 passed, 0 failed" ;;
esac
RUN
	chmod +x "$s"/vm/*.sh "$s/net-tests/run" "$s/net-tests/check"
	# ENV|EXIT|LAST LINE
	while IFS='|' read -r env want last; do
		rc=0
		out=$(env $env "$s/net-tests/check" 2>/dev/null) || rc=$?
		if [ "$rc" = "$want" ] && [ "$(tail -n 1 <<< "$out")" = "$last" ]; then
			echo "ok - ${env:-all passing}: exit $rc, '$last'"
		else
			echo "not ok - ${env:-all passing}: exit $rc, '$(tail -n 1 <<< "$out")', expected exit $want, '$last'"
			bad=1
		fi
	done <<'CASES'
X=1|0|49 passed, 0 failed
RUNMODE=fail|1|48 passed, 1 failed
FAILBG=1|1|36 passed, 1 failed
RUNMODE=int|130|3 passed, 1 failed
RUNMODE=silent|1|10 passed, 2 failed
FAILMAKE=6.12|1|0 passed, 1 failed
FAILMAKE=6.1|1|36 passed, 1 failed
CASES
	return $bad
}
