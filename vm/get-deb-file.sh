#!/usr/bin/env bash
# Print the path of one file of a Debian package, taken out of the package's
# .deb without installing it, for the guests' initramfs: busybox-static
# would remove the host's busybox, nginx would start a web server on the
# host. The .deb is fetched with apt-get download and unpacked with dpkg-deb
# -x into the cache, once per package version. Without FILE the whole
# package is unpacked there and the folder printed (the kernel headers of
# vm/get-kernel-headers.sh: installing them would build DKMS modules for
# the host).
#
#   vm/get-deb-file.sh PACKAGE FILE      (FILE as in the package: /bin/busybox)
#   vm/get-deb-file.sh PACKAGE           (the folder the package is unpacked in)
#   vm/get-deb-file.sh --deb PACKAGE     (the .deb itself, kept in the cache:
#                                         a guest installs it)
# PACKAGE=VERSION takes that version instead of apt's candidate.
set -euo pipefail
. "$(dirname "$0")/common.sh"

keep=
[ "${1:-}" != --deb ] || { keep=1; shift; }
pkg=${1:?package} file=${2:-} want_ver=
case $pkg in
*=) die "$pkg: no version after the =" ;;
*=*) want_ver=${pkg#*=} pkg=${pkg%%=*} ;;
esac
# a version asked for, already unpacked or kept: no apt lists needed
if [ -n "$want_ver" ]; then
	dir=$PMEMZC_CACHE/debs/$pkg/$(echo "$want_ver" | tr ':~' '__')
	if [ -n "$keep" ]; then
		kept=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" 2>/dev/null | head -n 1 || :)
		[ -z "$kept" ] || { echo "$kept"; exit 0; }
	elif [ -e "$dir/${file:-/.pmemzc-unpacked}" ]; then
		echo "$dir${file:+/$file}"
		exit 0
	fi
fi
candidate() {
	if [ -n "$want_ver" ]; then	# that version, if apt knows it
		apt-cache madison "$pkg" 2>/dev/null | awk -v v="$want_ver" '$3 == v {print v; exit}'
	else
		apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}'
	fi
}
ver=$(candidate)
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	say "no $pkg${want_ver:+ $want_ver} in the apt lists: apt-get update"
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	${SUDO:-} apt-get update -qq >/dev/null || die "apt-get update failed"
	ver=$(candidate)
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "apt knows no $pkg package${want_ver:+ $want_ver}"
fi
dir=$PMEMZC_CACHE/debs/$pkg/$(echo "$ver" | tr ':~' '__')
# fetch: apt-get download of the package into a folder of its own, $tmp
# (removed at exit); $deb the .deb's name there
fetch() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmemzc-deb.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	chmod 0755 "$tmp"	# apt's _apt user may write the download there
	(cd "$tmp" && apt-get download -q "$pkg=$ver" >/dev/null 2>"$tmp/err") ||
		die "apt-get download $pkg=$ver: $(grep -v '^W:' "$tmp/err" | head -1)"
	deb=$(cd "$tmp" && echo "$pkg"_*.deb)
}
if [ -n "$keep" ]; then
	kept=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" 2>/dev/null | head -n 1 || :)
	if [ -z "$kept" ]; then
		fetch
		mkdir -p "$dir"
		cp "$tmp/$deb" "$dir/$deb.tmp"
		mv "$dir/$deb.tmp" "$dir/$deb"
		kept=$dir/$deb
	fi
	echo "$kept"
	exit 0
fi
# a whole package counts as there once its stamp is, written last
want=${file:-/.pmemzc-unpacked}
if [ ! -e "$dir/$want" ]; then
	fetch
	dpkg-deb -x "$tmp/$deb" "$tmp/x"
	if [ -n "$file" ]; then
		[ -e "$tmp/x/$file" ] || die "$pkg $ver has no $file"
		mkdir -p "$(dirname "$dir/$file")"
		cp "$tmp/x/$file" "$dir/$file.tmp"
		mv "$dir/$file.tmp" "$dir/$file"
	else
		mkdir -p "$dir"
		cp -a "$tmp/x/." "$dir/"
		touch "$dir/$want"
	fi
fi
echo "$dir${file:+/$file}"
