#!/usr/bin/env bash
# make deb: the Debian packages of debian/ (prd-dkms, pmem-zc-dkms,
# pmem-zc), built by dpkg-buildpackage -b from a copy of the work tree
# under build/deb/ (so that neither the work tree nor its parent folder
# gets a build product), then checked by lintian with the source package,
# which fails the build on an error. The .debs, .changes, .buildinfo, the
# source package and the build log stay in build/deb/; the copy is removed
# after a build that succeeded.
# vm/install-deps.sh vm/packages-deb.txt installs the tools first.
set -euo pipefail
. "$(dirname "$0")/common.sh"

vm_refuse_foreign_root
top=$PMEMZC_TOP
out=$top/build/deb
ver=$(head -n1 "$top/VERSION")
[[ $ver =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || die "VERSION: '$ver' is not a version"
chver=$(cd "$top" && dpkg-parsechangelog -S Version)
[ "$chver" = "$ver" ] ||
	die "VERSION says $ver, debian/changelog $chver: add a changelog entry for $ver (dch -v $ver)"

src=$out/pmem-zc-$ver
rm -rf "$out"
mkdir -p "$src"
# what git tracks, and what it would (new files not yet added), as they are
# in the work tree
if git -C "$top" rev-parse --git-dir > /dev/null 2>&1; then
	(cd "$top" && git ls-files -z -c -o --exclude-standard |
		while IFS= read -r -d '' f; do [ ! -e "$f" ] || printf '%s\0' "$f"; done |
		xargs -0 cp -a --parents -t "$src")
else
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
fi

# the source package too, from the tree as copied, for lintian's source
# checks (debian/control, debian/copyright...)
say "dpkg-source -b, dpkg-buildpackage -us -uc -b (log: build/deb/build.log)"
(cd "$out" && dpkg-source -b "pmem-zc-$ver") > "$out/build.log" 2>&1 ||
	{ cat "$out/build.log" >&2; die "dpkg-source failed"; }
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >> "$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed (build/deb/build.log; the copy built from is build/deb/pmem-zc-$ver)"
fi
rm -rf "$src"
changes=$(echo "$out"/pmem-zc_"$ver"_*.changes)
[ -f "$changes" ] || die "no .changes in build/deb"

dsc=$out/pmem-zc_$ver.dsc
say "lintian ${changes#"$top"/} ${dsc#"$top"/}"
lintian --fail-on error --display-info "$changes" "$dsc" || die "lintian found errors"
for d in "$out"/*.deb; do
	echo "${d#"$top"/}"
done
