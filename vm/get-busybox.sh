#!/usr/bin/env bash
# Print the path of a static busybox for the guests, taken out of Debian's
# busybox-static package without installing it: that package conflicts with
# (and would remove) the host's own busybox. The .deb is fetched with
# apt-get download and unpacked with dpkg-deb -x into the cache, once per
# package version.
set -euo pipefail
. "$(dirname "$0")/common.sh"

pkg=busybox-static
ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	say "no $pkg in the apt lists: apt-get update"
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	${SUDO:-} apt-get update -qq >/dev/null || die "apt-get update failed"
	ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "apt knows no $pkg package"
fi
dir=$PMEMZC_CACHE/busybox/$(echo "$ver" | tr ':~' '__')
if [ ! -x "$dir/bin/busybox" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmemzc-busybox.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	chmod 0755 "$tmp"	# apt's _apt user may write the download there
	(cd "$tmp" && apt-get download -q "$pkg=$ver" >/dev/null 2>"$tmp/err") ||
		die "apt-get download $pkg=$ver: $(grep -v '^W:' "$tmp/err" | head -1)"
	dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/x"
	[ -x "$tmp/x/bin/busybox" ] || die "$pkg $ver has no bin/busybox"
	mkdir -p "$dir/bin"
	cp "$tmp/x/bin/busybox" "$dir/bin/busybox.tmp"
	mv "$dir/bin/busybox.tmp" "$dir/bin/busybox"
fi
echo "$dir/bin/busybox"
