# The runner itself: where no tap can be made (here /dev/net/tun is
# /dev/null in a mount namespace of the test's own), the runner says so in
# one line and links the guests by socket, and they reach each other; with
# PMEMZC_NET=tap it stops with the reason instead.
TEST_TIMEOUT=400

test_run() {
	local how=-m rc=0 out=$T/fallback.tap
	[ -e /dev/net/tun ] || { echo "no /dev/net/tun on this host: nothing to take away"; return 77; }
	[ "$(id -u)" -eq 0 ] || how=-rm
	# an inner runner that makes its own network namespace
	notun() {
		unshare $how sh -c 'mount --bind /dev/null /dev/net/tun && exec "$@"' notun \
			env -u PMEMZC_NETNS -u VM_PORT_A -u VM_PORT_B "$@"
	}
	notun env -u PMEMZC_NET "$PMEMZC_TOP/net-tests/run" --suite selftest --results "$T/inner" link-ping > "$out" 2>&1 || rc=$?
	sed 's/^/    /' "$out"
	[ $rc = 0 ] || { echo "inner run failed ($rc)"; return 1; }
	[ "$(grep -c 'no tap link' "$out")" = 1 ] || { echo "no single 'no tap link' line"; return 1; }
	grep -q 'no tap link (.*): guests linked by QEMU socket netdev' "$out" || { echo "the line does not say why and what instead"; return 1; }
	grep -q '^# kernel=.* flavour=.* link=socket ' "$out" || { echo "the run did not use the socket link"; return 1; }
	grep -qx '1 passed, 0 failed' "$out" || { echo "guests did not reach each other"; return 1; }
	echo "# no tap: one line ($(grep 'no tap link' "$out" | sed 's/^\[[^]]*\] //')), socket link, guests reach each other"

	rc=0
	notun env PMEMZC_NET=tap "$PMEMZC_TOP/net-tests/run" --suite selftest --results "$T/inner-tap" link-ping > "$out" 2>&1 || rc=$?
	sed 's/^/    /' "$out"
	[ $rc != 0 ] || { echo "PMEMZC_NET=tap without a tap: the run went on"; return 1; }
	grep -q 'error: PMEMZC_NET=tap, but no tap link: ' "$out" || { echo "no reason given"; return 1; }
	! grep -q '^ok' "$out" || { echo "a test ran"; return 1; }
	echo "# PMEMZC_NET=tap without a tap: stopped, saying why"
}
