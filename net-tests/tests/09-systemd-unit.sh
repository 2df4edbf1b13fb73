# Host only: the package's unit, debian/pmem-zc.service, as systemd reads
# it (no systemd runs in the guests, and none need run here): it verifies
# clean (systemd-analyze verify, with ExecStart= the CLI built here), its
# text says pmem-zc serve --user pmem-zc, Type=notify and the sandbox's
# directives but not RestrictSUIDSGID= (whose seccomp filter answers
# openat2() ENOSYS), and the sandbox scores an exposure of at most 4.5 in
# systemd-analyze security --offline (a static estimate: the tool sees a
# service started as root, not the drop; 4.1 without RestrictSUIDSGID=,
# docs/http-server.md states the figure). What the
# unit relies on of the server (socket activation by LISTEN_FDS, READY=1
# and STOPPING=1 on NOTIFY_SOCKET, the drop to --user) is tested in the
# CLI's host tests (02-cli-unit: systemd(), privileges()).
TEST_TIMEOUT=120

test_run() {
	local unit=$T/pmem-zc.service out score want=4.5 d
	command -v systemd-analyze > /dev/null ||
		{ echo "no systemd-analyze (package systemd: make deps)"; return 1; }
	make -s -C "$PMEMZC_TOP/pmem-zc-demo/cli" pmem-zc > "$T/make.log" 2>&1 ||
		{ tail -5 "$T/make.log"; return 1; }
	sed "s#/usr/sbin/pmem-zc#$PMEMZC_TOP/pmem-zc-demo/cli/pmem-zc#" \
		"$PMEMZC_TOP/debian/pmem-zc.service" > "$unit"
	if ! out=$(systemd-analyze verify --man=no "$unit" 2>&1) || [ -n "$out" ]; then
		echo "$out"
		echo "systemd-analyze verify: not clean"
		return 1
	fi
	echo "ok - systemd-analyze verify: clean"
	for d in 'Type=notify' 'NotifyAccess=main' 'ExecStart=[^ ]*/pmem-zc serve --user pmem-zc ' \
		 'ExecReload=/bin/kill -HUP $MAINPID' 'NoNewPrivileges=yes' 'ProtectSystem=strict' \
		 'ProtectHome=yes' 'PrivateTmp=yes' 'DevicePolicy=closed' 'DeviceAllow=/dev/pmem_zc rw' \
		 'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' \
		 'CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_SETUID CAP_SETGID$'; do
		grep -q "^$d" "$unit" || { echo "the unit has no '$d'"; return 1; }
	done
	echo "ok - Type=notify, --user pmem-zc, reload by SIGHUP, and the sandbox's directives"
	# its seccomp filter answers openat2() ENOSYS: every request was 500
	! grep -Eq '^\s*(RestrictSUIDSGID|DynamicUser)\s*=\s*(yes|true|on|1)' "$unit" ||
		{ echo "the unit has RestrictSUIDSGID= (or DynamicUser=, which implies it): it refuses the server's openat2()"; return 1; }
	echo "ok - no RestrictSUIDSGID= (its filter refuses openat2())"
	out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
	score=$(echo "$out" | sed -n 's/.*Overall exposure level for pmem-zc.service: \([0-9.]*\) .*/\1/p')
	[ -n "$score" ] || { echo "$out" | tail -5; echo "no exposure level"; return 1; }
	awk -v s="$score" -v w="$want" 'BEGIN { exit !(s <= w) }' ||
		{ echo "$out" | grep '✗'; echo "exposure $score, more than $want"; return 1; }
	echo "ok - systemd-analyze security: exposure $score (at most $want)"
}
