# Host only: make check (net-tests/check) over stand-ins for make and the
# runner. Its last line adds the runs up and its exit status agrees with
# it in every case: all passing; a failed test on 6.12; the runner exiting
# as interrupted; a runner that exits non-zero with no failed test, or
# ends without a summary; make failing for either kernel (the other
# kernel's run still counts) or for the packages; a 6.1 subset naming a
# test that does not exist. SIGTERM, and SIGINT, to check while a runner
# or a build runs stops it within seconds, counting what the runner
# reported, never as a success. The order: packages, then each kernel
# built right before its run; 6.12 on its test kernel, the 6.1 subset on
# 6.1's bench kernel (--debug: its test kernel) with 69's 6.1 subset of
# cases (FSDAX_MATRIX=subset; check, the 6.12 run's, with --debug and
# --all); --all runs every test numbered 10 and up on 6.1's test kernel;
# then each runs its Debian subset on Debian's own 6.12, then 6.1; --debian
# runs that alone with 45-deb-install, after make deb's packages, and no
# lab kernel.
TEST_TIMEOUT=90

test_run() {
	local s=$T/top env out rc last want bad=0 nlab nsub ndeb deb deb1 calls pid t0 dt sig
	# as make check KERNEL=... runs us: make's variables are not the stand-ins'
	unset MAKEFLAGS MAKEOVERRIDES MFLAGS MAKELEVEL PMEMZC_SUBSET_6_1 PMEMZC_SUBSET_DEBIAN PMEMZC_INSTALL_DEBIAN FSDAX_MATRIX
	mkdir -p "$s/net-tests/tests" "$s/vm"
	cp "$PMEMZC_TOP/net-tests/check" "$s/net-tests/"
	# the real test names, as empty files
	(cd "$PMEMZC_TOP/net-tests/tests" && for f in [0-9]*.sh; do : > "$s/net-tests/tests/$f"; done)
	nlab=$(find "$s/net-tests/tests" -name '*.sh' -printf '%f\n' | awk -F- '$1 + 0 >= 10' | wc -l)
	# the 6.1 subset as net-tests/check names it by default
	nsub=$(sed -n 's/^SUBSET_6_1=${PMEMZC_SUBSET_6_1:-"\(.*\)"}$/\1/p' "$s/net-tests/check" | wc -w)
	[ "$nsub" -gt 0 ] || { echo "not ok - no default SUBSET_6_1 in net-tests/check"; return 1; }
	ndeb=$(sed -n 's/^SUBSET_DEBIAN=${PMEMZC_SUBSET_DEBIAN:-"\(.*\)"}$/\1/p' "$s/net-tests/check" | wc -w)
	[ "$ndeb" -gt 0 ] || { echo "not ok - no default SUBSET_DEBIAN in net-tests/check"; return 1; }
	printf 'all deps:\n\t@echo "$@ $(KERNEL) $(FLAVOUR)" >> $(LOG)\n\t@[ -z "$(SLEEPMAKE)" ] || bash -c "sleep 31; :"\n\t@[ -z "$(FAILMAKE)" ] || [ "$(FAILMAKE)" != "$(KERNEL)$@" ]\n' > "$s/Makefile"
	# the 6.1 run passes one test per name it was given
	cat > "$s/net-tests/run" <<'RUN'
#!/bin/bash
echo "run $PMEMZC_KERNEL $PMEMZC_FLAVOUR ${FSDAX_MATRIX:-unset} $#${1:+ $1}" >> "$LOG"
case "$PMEMZC_KERNEL-$PMEMZC_FLAVOUR:${RUNMODE:-}" in
*:int) echo "3 passed, 0 failed"; exit 130 ;;
*:sleep) trap 'echo "2 passed, 1 failed"; exit 143' TERM; sleep 30 & wait; exit 9 ;;
6.12-test:fail) echo "35 passed, 1 failed"; exit 1 ;;
*:silent) echo "5 passed, 0 failed"; exit 1 ;;
*:nosummary) echo "ok 1 - something"; exit 1 ;;
*) [ $# = 0 ] && echo "36 passed, 0 failed" || echo "$# passed, 0 failed" ;;
esac
RUN
	printf '#!/bin/sh\necho "install-deps ${1##*/}" >> "$LOG"\n' > "$s/vm/install-deps.sh"
	chmod +x "$s/net-tests/run" "$s/net-tests/check" "$s/vm/install-deps.sh"
	export LOG=$T/calls
	# ENV|ARGS|EXIT|LAST LINE
	while IFS='|' read -r env args want last; do
		rc=0
		: > "$LOG"
		# shellcheck disable=SC2086
		out=$(env "$env" "$s/net-tests/check" $args 2>&1) || rc=$?
		if [ "$rc" = "$want" ] && [ "$(tail -n 1 <<< "$out")" = "$last" ]; then
			echo "ok - $env $args: exit $rc, '$last'"
		else
			echo "not ok - $env $args: exit $rc, '$(tail -n 1 <<< "$out")', expected exit $want, '$last'"
			bad=1
		fi
	done <<CASES
X=1||0|$((36 + nsub + 2 * ndeb)) passed, 0 failed
X=1|--all|0|$((36 + nlab + 2 * ndeb)) passed, 0 failed
X=1|--debug|0|$((36 + nsub + 2 * ndeb)) passed, 0 failed
X=1|--debian|0|$((2 * (ndeb + 1))) passed, 0 failed
RUNMODE=fail||1|$((35 + nsub + 2 * ndeb)) passed, 1 failed
RUNMODE=int||130|3 passed, 1 failed
RUNMODE=silent||1|20 passed, 4 failed
RUNMODE=nosummary||1|0 passed, 4 failed
FAILMAKE=6.12all||1|$((nsub + ndeb)) passed, 2 failed
FAILMAKE=6.1all||1|$((36 + ndeb)) passed, 2 failed
FAILMAKE=deps||1|0 passed, 1 failed
PMEMZC_SUBSET_6_1=44-demo 99-none||1|$((36 + 2 * ndeb)) passed, 1 failed
PMEMZC_SUBSET_6_1=4*||1|$((36 + 2 * ndeb)) passed, 1 failed
X=1|--bogus|2|usage: net-tests/check [--debug|--all|--debian]
X=1|--all extra|2|usage: net-tests/check [--debug|--all|--debian]
X=1|--debug --all|2|usage: net-tests/check [--debug|--all|--debian]
CASES

	# the order: packages, then each kernel built right before its run
	deb="all 6.12 debian;run 6.12 debian check $ndeb 44-demo;all 6.1 debian;run 6.1 debian check $ndeb 44-demo;"
	deb1="all 6.12 debian;run 6.12 debian check $((ndeb + 1)) 44-demo;all 6.1 debian;run 6.1 debian check $((ndeb + 1)) 44-demo;"
	while IFS='|' read -r args want desc; do
		: > "$LOG"
		# shellcheck disable=SC2086
		"$s/net-tests/check" $args > /dev/null 2>&1
		calls=$(tr '\n' ';' < "$LOG")
		if [ "$calls" = "$want" ]; then
			echo "ok - $desc"
		else
			echo "not ok - $desc: the calls were: $calls"
			bad=1
		fi
	done <<CASES
|deps  ;all 6.12 test;run 6.12 test check 0;all 6.1 bench;run 6.1 bench subset $nsub 44-demo;$deb|deps, then 6.12's test kernel built and run (69's check cases), then 6.1's bench kernel built and its $nsub tests run (69's 6.1 subset of cases), then Debian's 6.12 and 6.1, $ndeb tests each
--debug|deps  ;all 6.12 test;run 6.12 test check 0;all 6.1 test;run 6.1 test check $nsub 44-demo;$deb|--debug: the $nsub tests on 6.1's test kernel, 69's check cases, then Debian's
--all|deps  ;all 6.12 test;run 6.12 test check 0;all 6.1 test;run 6.1 test check $nlab 10-link;$deb|--all: the $nlab tests numbered 10 and up on 6.1's test kernel, from 10-link, 69's check cases, then Debian's
--debian|deps  ;install-deps packages-deb.txt;$deb1|--debian: make deb's packages, then Debian's own 6.12 and 6.1, each the $ndeb tests of its subset and 45-deb-install, and no lab kernel
CASES

	# signals while a runner or a build runs: passed on, the runner's
	# summary counted, stopped at once (the stand-ins would sleep 30 s)
	# (env --default-signal: a background job of a script ignores SIGINT)
	while IFS='|' read -r env sig want last; do
		t0=$(date +%s)
		env --default-signal=INT "$env" "$s/net-tests/check" > "$T/sig.out" 2>&1 &
		pid=$!
		sleep 1.5
		kill -"$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		dt=$(($(date +%s) - t0))
		# nothing the build started is left (a compiler under a script
		# under make: the stand-in's sleep 31)
		sleep 0.5
		if pgrep -x -f 'sleep 31' > /dev/null; then
			echo "not ok - SIG$sig with $env: a process of the build outlived check: $(pgrep -a -x -f 'sleep 31')"
			pkill -x -f 'sleep 31'
			bad=1
		elif [ "$rc" = "$want" ] && [ "$(tail -n 1 "$T/sig.out")" = "$last" ] && [ "$dt" -lt 10 ]; then
			echo "ok - SIG$sig with $env: exit $rc after ${dt}s, '$last'"
		else
			echo "not ok - SIG$sig with $env: exit $rc after ${dt}s, '$(tail -n 1 "$T/sig.out")', expected exit $want, '$last' within 10 s"
			bad=1
		fi
	done <<'CASES'
RUNMODE=sleep|TERM|143|2 passed, 2 failed
RUNMODE=sleep|INT|130|2 passed, 2 failed
SLEEPMAKE=1|TERM|143|0 passed, 1 failed
SLEEPMAKE=1|INT|130|0 passed, 1 failed
CASES
	return $bad
}
