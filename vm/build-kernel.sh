#!/usr/bin/env bash
# Build the guest kernel of one flavour (test|bench) in the cache.
#
#   [PMEMZC_KERNEL=6.12|6.1] vm/build-kernel.sh test|bench
#
# Source: Debian's linux-source-<version> tarball, extracted once per patch
# series into $PMEMZC_CACHE/src/linux-<version>-<key>, with the series of
# mm-export-patch/<version>/ applied in order (KSERIES in vm/common.sh).
# Config: tinyconfig + vm/config/base.config + vm/config/<flavour>.config,
# merged by scripts/kconfig/merge_config.sh; every option of the fragments
# must survive olddefconfig or the build stops.
# Build: $PMEMZC_CACHE/build/<flavour>-<key> (O=), ccache, bzImage + modules.
# The key is the content of the tarball name, patches, fragments and this
# script (kernel_paths in vm/common.sh): an unchanged second run only checks
# the stamp and rebuilds nothing. After a build, vm/cache.sh prune keeps the
# two most recently used source trees and builds of each flavour.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:-test}
case $flavour in test|bench) ;; *) die "unknown flavour '$flavour' (test|bench)";; esac
cfgdir=$PMEMZC_TOP/vm/config
kernel_paths "$flavour"
[ -r "$KSRC_TAR" ] || die "$KSRC_TAR missing: apt-get install linux-source-$PMEMZC_KERNEL"
patches=("${KPATCHES[@]}")
src=$KSRC_DIR
out=$KBUILD_DIR
link=$(kernel_link "$flavour")

if [ -e "$out/.pmemzc-done" ]; then
	ln -sfn "$out" "$link"
	touch "$out" "$src"	# most recently used: kept by the prune
	say "$PMEMZC_KERNEL $flavour kernel up to date: $out"
	exit 0
fi

mkdir -p "$PMEMZC_CACHE/src" "$PMEMZC_CACHE/build" "$PMEMZC_CACHE/ccache"

# --- source -------------------------------------------------------------
if [ ! -e "$src/.pmemzc-done" ]; then
	say "extracting $KSRC_TAR into $src (${#patches[@]} patches)"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$KSRC_TAR" -C "$src.tmp" --strip-components=1
	for p in "${patches[@]}"; do
		say "applying $(basename "$p")"
		git -C "$src.tmp" apply --whitespace=nowarn "$p" ||
			die "patch $(basename "$p") does not apply to $(basename "$KSRC_TAR")"
	done
	touch "$src.tmp/.pmemzc-done"
	mv "$src.tmp" "$src"
fi

# --- config -------------------------------------------------------------
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=pmem-zc KBUILD_BUILD_HOST=guest
export CCACHE_DIR=${CCACHE_DIR:-$PMEMZC_CACHE/ccache} CCACHE_BASEDIR=$PMEMZC_CACHE
# depend mode: a miss is hashed from the compiler's own -MMD output, not
# by running the preprocessor first. ccache's default mode made a cold
# build (CI's every build) 22 to 46 % slower than gcc alone (fs/xfs and
# fs/ext4 of 6.1: 91 and 101 s against 69 and 75 s); depend mode 77 s,
# and a rebuild hits as often (152 of 152).
export CCACHE_DEPEND=true
kmake=(make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)")

mkdir -p "$out"
say "configuring $PMEMZC_KERNEL $flavour kernel in $out"
"${kmake[@]}" -s tinyconfig
(cd "$out" && KCONFIG_CONFIG=.config "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
	.config "$cfgdir/base.config" "$cfgdir/$flavour.config" >/dev/null)
"${kmake[@]}" -s olddefconfig

# Every line of the fragments, set or "is not set", must be in the result.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line; sym=${line%%=*} ;;
	'# CONFIG_'*' is not set') sym=${line#\# }; sym=${sym%% *}; want="# $sym is not set" ;;
	*) continue ;;
	esac
	if ! grep -qxF -- "$want" "$out/.config"; then
		# an unset option may also vanish entirely when its dependencies are off
		if [[ $want == '# '* ]] && ! grep -q "^$sym=" "$out/.config"; then continue; fi
		say "config: '$want' did not survive olddefconfig (got: $(grep -E "^(# )?$sym[= ]" "$out/.config" || echo absent))"
		missing=$((missing + 1))
	fi
done < <(cat "$cfgdir/base.config" "$cfgdir/$flavour.config")
[ "$missing" -eq 0 ] || die "$missing config option(s) of the fragments were dropped; fix vm/config/"

# --- build --------------------------------------------------------------
say "building $PMEMZC_KERNEL $flavour kernel (bzImage + modules, -j$(nproc), ccache)"
start=$(date +%s)
"${kmake[@]}" bzImage modules >"$out/build.log" 2>&1 || { tail -40 "$out/build.log" >&2; die "kernel build failed, log: $out/build.log"; }
rm -rf "$out/modroot"
"${kmake[@]}" -s INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install >>"$out/build.log" 2>&1
say "built in $(( $(date +%s) - start )) s"
touch "$out/.pmemzc-done" "$out" "$src"
ln -sfn "$out" "$link"
# the cache keeps the two most recently used trees per version and builds
# per version and flavour
"$PMEMZC_TOP/vm/cache.sh" prune
