# Host only: installing the host packages that make, make demo and make
# check need (vm/packages.txt) removes nothing a Debian 12 host may have;
# busybox in particular, which the busybox-static package would replace
# (the guests' static busybox is unpacked from its .deb instead). Checked
# with apt-get's simulation, as if busybox were installed.
TEST_TIMEOUT=120

test_run() {
	local pkgs out
	mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PMEMZC_TOP/vm/packages.txt")
	[ ${#pkgs[@]} -gt 10 ] || { echo "only ${#pkgs[@]} packages read"; return 1; }
	if ! out=$(apt-get -s -q install --no-install-recommends busybox "${pkgs[@]}" 2>&1); then
		echo "$out" | tail -8
		echo "apt-get cannot install vm/packages.txt beside busybox"
		return 1
	fi
	# what installing busybox alone would remove is not ours to answer for
	apt-get -s -q install busybox 2>/dev/null | grep '^Remv ' > "$T/remv.busybox"
	if echo "$out" | grep '^Remv ' | grep -vxF -f "$T/remv.busybox"; then
		echo "installing vm/packages.txt would remove the packages above"
		return 1
	fi
	echo "# ${#pkgs[@]} host packages install beside busybox, removing nothing"
	"$PMEMZC_TOP/vm/get-deb-file.sh" busybox-static /bin/busybox > "$T/busybox.path" || return 1
	local bb
	bb=$(cat "$T/busybox.path")
	readelf -h "$bb" > /dev/null && ! readelf -l "$bb" | grep -q 'program interpreter' ||
		{ echo "$bb is not a static binary"; return 1; }
	echo "# guests' busybox unpacked from the busybox-static .deb: $(cat "$T/busybox.path")"
}
