# Host only: make check (net-tests/check) over stand-ins for make and the
# runner. Its last line adds both runs up and its exit status agrees with
# it in every case: all passing; a failed test on 6.12; the runner
# interrupted (the status of the signal, never a success); a runner that
# exits non-zero with no failed test; make failing for either kernel (the
# other kernel's run still counts); a 6.1 subset naming a test that does
# not exist. --all runs every two-guest test on 6.1, and the 6.1 run comes
# after the 6.12 run, each kernel built just before its run.
TEST_TIMEOUT=60

test_run() {
	local s=$T/top env out rc last want bad=0 nlab args
	mkdir -p "$s/net-tests/tests" "$s/vm"
	cp "$PMEMZC_TOP/net-tests/check" "$s/net-tests/"
	# the real test names, as empty files
	(cd "$PMEMZC_TOP/net-tests/tests" && for f in [0-9]*.sh; do : > "$s/net-tests/tests/$f"; done)
	nlab=$(cd "$s/net-tests/tests" && ls [1-9][0-9]-*.sh | wc -l)
	printf 'all deps:\n\t@echo "$@ $(KERNEL)" >> $(LOG)\n\t@[ -z "$(FAILMAKE)" ] || [ "$(FAILMAKE)" != "$(KERNEL)" ]\n' > "$s/Makefile"
	# the 6.1 run passes one test per name it was given
	cat > "$s/net-tests/run" <<'RUN'
#!/bin/bash
echo "run $PMEMZC_KERNEL $#" >> "$LOG"
case "$PMEMZC_KERNEL:${RUNMODE:-}" in
*:int) echo "3 passed, 0 failed"; exit 130 ;;
6.12:fail) echo "35 passed, 1 failed"; exit 1 ;;
*:silent) echo "5 passed, 0 failed"; exit 1 ;;
6.12:*) echo "36 passed, 0 failed" ;;
6.1:*) echo "$# passed, 0 failed" ;;
esac
RUN
	chmod +x "$s/net-tests/run" "$s/net-tests/check"
	# ENV|ARGS|EXIT|LAST LINE
	while IFS='|' read -r env args want last; do
		rc=0
		export LOG=$T/calls
		: > "$LOG"
		# shellcheck disable=SC2086
		out=$(env "$env" "$s/net-tests/check" $args 2>&1) || rc=$?
		if [ "$rc" = "$want" ] && [ "$(tail -n 1 <<< "$out")" = "$last" ]; then
			echo "ok - ${env:-all passing} $args: exit $rc, '$last'"
		else
			echo "not ok - ${env:-all passing} $args: exit $rc, '$(tail -n 1 <<< "$out")', expected exit $want, '$last'"
			bad=1
		fi
	done <<CASES
X=1||0|49 passed, 0 failed
X=1|--all|0|$((36 + nlab)) passed, 0 failed
RUNMODE=fail||1|48 passed, 1 failed
RUNMODE=int||130|3 passed, 1 failed
RUNMODE=silent||1|10 passed, 2 failed
FAILMAKE=6.12||1|13 passed, 1 failed
FAILMAKE=6.1||1|36 passed, 1 failed
PMEMZC_SUBSET_6_1=44-demo 99-none||1|36 passed, 1 failed
X=1|--bogus|2|usage: net-tests/check [--all]
CASES
	# the order: packages, then each kernel built right before its run
	LOG=$T/calls "$s/net-tests/check" > /dev/null 2>&1
	args=$(tr '\n' ';' < "$T/calls")
	if [ "$args" = "deps ;all 6.12;run 6.12 0;all 6.1;run 6.1 13;" ]; then
		echo "ok - deps, then 6.12 built and run, then 6.1 built and run"
	else
		echo "not ok - the calls were: $args"
		bad=1
	fi
	return $bad
}
