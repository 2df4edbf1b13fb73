# Host only, in a copy of this checkout with a cache of its own: after
# builds, stamps and results, `make clean` leaves nothing git does not
# track (git status --ignored is empty); `make distclean` also removes this
# checkout's cache entries and nothing else; the cache keeps the two most
# recently used source trees, and per flavour builds and initramfs images.
TEST_TIMEOUT=300

test_run() {
	local repo=$T/repo cache=$T/cache d f left i
	mkdir -p "$repo"
	(cd "$PMEMZC_TOP" && git ls-files -z -c -o --exclude-standard | xargs -0 cp --parents -t "$repo") || return 1
	(cd "$repo" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm copy) || return 1

	# 1. make clean after the products of every build step
	make -s -C "$repo" cli PMEMZC_CACHE="$cache" > "$T/cli.log" 2>&1 || { cat "$T/cli.log"; return 1; }
	make -s -C "$repo/pmem-zc-demo/cli" tests/test-pmem-zc tests/test-pmem-zc-san SANITIZE=1 > /dev/null 2>&1
	make -s -C "$repo/pmem-zc-demo/cli" tests/test-pmem-zc > /dev/null 2>&1
	for d in pmem-driver pmem-zc-demo/module net-tests/modules/warn_test; do
		for f in x.o x.ko x.mod x.mod.c .x.o.cmd modules.order Module.symvers .pmemzc-kernel; do
			echo product > "$repo/$d/$f"
		done
	done
	mkdir -p "$repo/net-tests/tools/bin" "$repo/results/demo-1" "$repo/build/deb"
	echo tool > "$repo/net-tests/tools/bin/getgeo"
	echo img > "$repo/results/demo-1/nvdimm.img"
	echo deb > "$repo/build/deb/prd-dkms_0_all.deb"	# make deb
	make -s -C "$repo" clean PMEMZC_CACHE="$cache" > "$T/clean.log" 2>&1 || { cat "$T/clean.log"; return 1; }
	left=$(cd "$repo" && git status --porcelain --ignored)
	[ -z "$left" ] || { echo "make clean left: $left"; return 1; }
	echo "# make clean: nothing left that git does not track"

	# 2. distclean drops this checkout's entries only
	local mine=() other
	for k in 6.12 6.1; do
		for f in test bench; do
			mapfile -t -O ${#mine[@]} mine < <(PMEMZC_KERNEL=$k PMEMZC_CACHE=$cache "$repo/vm/cache.sh" paths $f)
			mkdir -p "$cache/initramfs"
			echo x > "$cache/initramfs/$(basename "${mine[-1]}")-0123.cpio"
			mine+=("$cache/initramfs/$(basename "${mine[-1]}")-0123.cpio")
		done
	done
	for d in "${mine[@]}"; do mkdir -p "$d" 2>/dev/null || [ -e "$d" ]; done
	ln -sfn "${mine[1]}" "$cache/kernel-6.12-test"
	other=("$cache/src/linux-other" "$cache/build/test-other" "$cache/initramfs/test-other-1.cpio" "$cache/ccache/x")
	for d in "${other[@]}"; do mkdir -p "$(dirname "$d")"; echo x > "$d"; done
	make -s -C "$repo" distclean PMEMZC_CACHE="$cache" > "$T/distclean.log" 2>&1 || { cat "$T/distclean.log"; return 1; }
	for d in "${mine[@]}"; do [ ! -e "$d" ] || { echo "distclean left $d"; return 1; }; done
	[ ! -L "$cache/kernel-6.12-test" ] || { echo "distclean left a dangling kernel-6.12-test link"; return 1; }
	for d in "${other[@]}"; do [ -e "$d" ] || { echo "distclean removed $d"; return 1; }; done
	echo "# make distclean: this checkout's ${#mine[@]} cache entries gone, other checkouts' kept"

	# 3. prune: two most recently used of each kind (per kernel version)
	#    stay, and what a link points to
	rm -rf "$cache"; mkdir -p "$cache/src" "$cache/build" "$cache/initramfs"
	# 1..4 finished, 5 a failed attempt between 3 and 4, 0 an unfinished
	# one older than every finished build, 6 one newer (being built)
	for i in 0 1 2 3 4 5 6; do
		mkdir "$cache/src/linux-6.12-$i" "$cache/build/6.12-test-$i" "$cache/build/6.12-bench-$i"
		case $i in 0|5|6) ;; *) touch "$cache/src/linux-6.12-$i/.pmemzc-done" "$cache/build/6.12-test-$i/.pmemzc-done" "$cache/build/6.12-bench-$i/.pmemzc-done" ;; esac
		echo x > "$cache/initramfs/6.12-test-$i.cpio"
		touch -d "2026-01-0$((i + 1))" "$cache/src/linux-6.12-$i" "$cache/build/6.12-test-$i" "$cache/build/6.12-bench-$i" "$cache/initramfs/6.12-test-$i.cpio"
	done
	touch -d 2026-02-01 "$cache/src/linux-6.12-6" "$cache/build/6.12-test-6" "$cache/build/6.12-bench-6"
	touch -d '2026-01-04 12:00' "$cache/src/linux-6.12-5" "$cache/build/6.12-test-5" "$cache/build/6.12-bench-5" "$cache/initramfs/6.12-test-5.cpio"
	# the other kernel's, older than all of them: its own two newest stay
	for i in 1 2 3; do
		mkdir "$cache/src/linux-6.1-$i" "$cache/build/6.1-test-$i"
		touch "$cache/src/linux-6.1-$i/.pmemzc-done" "$cache/build/6.1-test-$i/.pmemzc-done"
		touch -d "2025-01-0$i" "$cache/src/linux-6.1-$i" "$cache/build/6.1-test-$i"
	done
	ln -s build/6.12-bench-1 "$cache/kernel-6.12-bench"
	PMEMZC_CACHE=$cache "$repo/vm/cache.sh" prune > "$T/prune.log" 2>&1 || { cat "$T/prune.log"; return 1; }
	left=$(cd "$cache" && echo src/* build/* initramfs/*)
	[ "$left" = "src/linux-6.1-2 src/linux-6.1-3 src/linux-6.12-3 src/linux-6.12-4 src/linux-6.12-6 build/6.1-test-2 build/6.1-test-3 build/6.12-bench-1 build/6.12-bench-3 build/6.12-bench-4 build/6.12-bench-6 build/6.12-test-3 build/6.12-test-4 build/6.12-test-6 initramfs/6.12-test-4.cpio initramfs/6.12-test-6.cpio" ] ||
		{ echo "prune left: $left"; return 1; }
	# 4. prune drops the layout before kernel versions (src/linux-KEY,
	#    build/test-KEY, kernel-test), except what a current link leads to
	rm -rf "$cache"; mkdir -p "$cache/src" "$cache/build" "$cache/initramfs"
	mkdir "$cache/src/linux-0123456789abcdef" "$cache/src/linux-fedcba9876543210" \
	      "$cache/build/test-0123456789abcdef" "$cache/build/bench-1111111111111111"
	ln -s "$cache/src/linux-fedcba9876543210" "$cache/build/test-0123456789abcdef/source"
	echo x > "$cache/initramfs/test-0123456789abcdef-1.cpio"
	ln -s "$cache/build/bench-1111111111111111" "$cache/kernel-bench"
	ln -s "$cache/build/test-0123456789abcdef" "$cache/kernel-6.1-test"
	PMEMZC_CACHE=$cache "$repo/vm/cache.sh" prune > "$T/prune2.log" 2>&1 || { cat "$T/prune2.log"; return 1; }
	left=$(cd "$cache" && echo src/* build/* initramfs/* kernel-*)
	[ "$left" = "src/linux-fedcba9876543210 build/test-0123456789abcdef initramfs/* kernel-6.1-test" ] ||
		{ echo "old-layout prune left: $left"; return 1; }
	echo "# prune: the layout before kernel versions dropped, what a current link leads to kept"
	echo "# prune: the two newest finished builds of each kind and kernel kept (and the linked one, and one being built); failed attempts gone"
}
