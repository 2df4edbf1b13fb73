#!/usr/bin/env bash
# Print the root of a Debian kernel's headers unpacked without installing
# them (an installed linux-headers package builds every DKMS module on the
# host for its kernel): linux-headers-KREL, its -common and its
# linux-kbuild package, each unpacked by vm/get-deb-file.sh, put together
# under $PMEMZC_CACHE/debs/kernel-headers/KREL/ as they would lie in /, and
# the absolute links and the Makefile's include repointed into that root.
# The kernel tree to build against is ROOT/usr/src/linux-headers-KREL.
#
#   vm/get-kernel-headers.sh 6.1|6.12     the newest Debian 12 amd64 headers
#                                         of that kernel in the apt lists
#   vm/get-kernel-headers.sh PACKAGE      those of linux-headers-KREL
set -euo pipefail
. "$(dirname "$0")/common.sh"

# the newest amd64 headers package of a kernel version in the apt lists
newest() {
	apt-cache search --names-only "$1" 2>/dev/null | awk '{print $1}' | sort -V | tail -1
}
case ${1:?6.1, 6.12 or a linux-headers package} in
6.1)	re='^linux-headers-6\.1\.0-[0-9]+-amd64$' ;;
6.12)	re='^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' ;;
linux-headers-*) re= ; hdr=$1 ;;
*)	die "unknown kernel '$1' (6.1, 6.12 or a linux-headers package)" ;;
esac
if [ -n "$re" ]; then
	hdr=$(newest "$re")
	if [ -z "$hdr" ]; then
		say "no $1 headers in the apt lists: apt-get update"
		[ "$(id -u)" -eq 0 ] || SUDO=sudo
		${SUDO:-} apt-get update -qq >/dev/null || die "apt-get update failed"
		hdr=$(newest "$re")
		[ -n "$hdr" ] || die "apt knows no package matching $re"
	fi
fi
krel=${hdr#linux-headers-}
root=$PMEMZC_CACHE/debs/kernel-headers/$krel
if [ -e "$root/.pmemzc-done" ]; then
	echo "$root"
	exit 0
fi

# the -common and linux-kbuild packages the headers depend on
deps=$(apt-cache show "$hdr" 2>/dev/null | sed -n 's/^Depends: //p' | head -1 | tr ',|' '\n\n' |
	awk '{print $1}' | grep -E '^linux-(headers-.*-common|kbuild-)' | sort -u) || :
[ "$(echo "$deps" | wc -w)" -eq 2 ] || die "$hdr: cannot tell its -common and linux-kbuild packages (found: ${deps:-none})"

rm -rf "$root"
mkdir -p "$root"
for p in "$hdr" $deps; do
	dir=$("$PMEMZC_TOP/vm/get-deb-file.sh" "$p")
	# hard links: the cache's copy stays as it is, the rewrites below
	# replace files and links rather than write through them
	cp -al "$dir/." "$root/" 2>/dev/null || cp -a "$dir/." "$root/"
	rm -f "$root/.pmemzc-unpacked"
done
# absolute links (lib/modules/KREL/build and source) into the root
while IFS= read -r -d '' l; do
	t=$(readlink "$l")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$root$t")" "$l"
done < <(find "$root" -type l -lname '/*' -print0)
# the kernel tree's Makefile includes the -common tree's by absolute path
mk=$root/usr/src/linux-headers-$krel/Makefile
[ -f "$mk" ] || die "$hdr has no usr/src/linux-headers-$krel/Makefile"
sed -i "s|^include /usr/src/|include $root/usr/src/|" "$mk"
grep -q "^include $root/usr/src/linux-headers-.*-common/Makefile" "$mk" ||
	die "$mk: no include of the -common tree to repoint"
touch "$root/.pmemzc-done"
echo "$root"
