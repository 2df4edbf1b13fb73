# Host only: the lab without root. As an unprivileged user (nobody, with
# setpriv) the runner's namespace step gives a private network namespace
# inside a user namespace (unshare -rn), where the link is a tap if that
# user may open /dev/net/tun, else the socket fallback with its one line;
# and `sudo make ...` in a checkout that belongs to someone else is refused
# with one line saying what to do.
TEST_TIMEOUT=60

test_run() {
	local d out rc=0 said
	[ -n "${T:-}" ] && [ -d "$T" ] || { echo "no results folder"; return 1; }
	d=$T/top
	[ "$(id -u)" = 0 ] || { echo "not root: cannot become another user to test this"; return 77; }
	mkdir -p "$d/vm"
	cp "$PMEMZC_TOP"/vm/common.sh "$PMEMZC_TOP"/vm/lib.sh "$d/vm/"
	chmod -R a+rX "$T"
	cat > "$d/probe.sh" <<'SH'
#!/usr/bin/env bash
. "$(dirname "$0")/vm/lib.sh"
vm_enter_netns "$0"
vm_net_init
echo "uid=$(id -u) netns=$PMEMZC_NETNS link=$PMEMZC_NET lo=$(ip -o link show lo | grep -q '[<,]UP[,>]' && echo UP)"
SH
	chmod a+rx "$d/probe.sh"
	out=$(cd / && env -i PATH="$PATH" HOME=/nonexistent PMEMZC_CACHE=/nonexistent \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$d/probe.sh" 2>&1) || rc=$?
	echo "$out"
	[ $rc = 0 ] || { echo "probe as nobody failed ($rc)"; return 1; }
	echo "$out" | grep -q '^uid=0 netns=1 link=\(tap\|socket\) lo=UP' ||
		{ echo "nobody got no private network namespace"; return 1; }
	if echo "$out" | grep -q 'link=socket'; then
		[ "$(echo "$out" | grep -c 'no tap link (')" = 1 ] || { echo "socket link without its one line"; return 1; }
	fi
	echo "# as nobody: private user+network namespace, link $(echo "$out" | sed -n 's/.*link=\([a-z]*\).*/\1/p')"

	# sudo in someone else's checkout
	chown 65534 "$d"
	said=$(SUDO_UID=1000 bash -c '. "$1/vm/common.sh"; PMEMZC_TOP=$1; vm_refuse_foreign_root; echo went-on' _ "$d" 2>&1) && rc=0 || rc=$?
	[ $rc != 0 ] && ! echo "$said" | grep -q went-on && echo "$said" | grep -q 'not through sudo' ||
		{ echo "sudo in another user's checkout: rc=$rc, said: $said"; return 1; }
	out=$(bash -c 'unset SUDO_UID; . "$1/vm/common.sh"; PMEMZC_TOP=$1; vm_refuse_foreign_root; echo went-on' _ "$d" 2>&1)
	[ "$out" = went-on ] || { echo "root without sudo refused: $out"; return 1; }
	echo "# sudo in another user's checkout refused: $said"
}
