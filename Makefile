# pmem-zc: struct-page-backed persistent memory and zero-copy I/O from it.
#
#   make            build the test kernel, initramfs and the project's modules
#   make demo       boot guests A and B and show pmem data reaching B
#   make check      every test on 6.12, then a subset on 6.1 (its kernel
#                   without debug options), then one on Debian's own 6.12
#                   and 6.1; what CI runs; the last line is "N passed, N
#                   failed" (KERNEL=6.1 or 6.12: every test on that kernel
#                   alone)
#   make check-both every test on 6.12, the subset on 6.1's test kernel,
#                   Debian's
#   make check-all  every test on 6.12, every two-guest test on 6.1,
#                   Debian's
#   make check-debian
#                   the subset on Debian's own 6.12 and 6.1 alone
#   make shell      guests A and B on the link, a shell in each (tmux)
#   make bench      benchmarks on the kernel without debug options
#   make soak       crashes, concurrency, faults, memory pressure, poison
#                   (test kernel; SOAK_SCALE=1 runs under an hour)
#   make fuzz       fuzz prd's map= parser (FUZZ_SECONDS=60, ASan+UBSan)
#   make fuzz-kernel
#                   71-zc-fuzz long, on the test kernel (KASAN, lockdep):
#                   FUZZ_CALLS=1000000 calls or FUZZ_SECS=1800 s
#   make deb        the Debian packages (debian/: prd-dkms, pmem-zc-dkms,
#                   pmem-zc) in build/deb/, checked by lintian
#   make clean      remove build products and results from the work tree
#   make distclean  clean, and drop this checkout's kernel builds, source
#                   tree and initramfs from the cache
#
# KERNEL=6.12 (the default) or KERNEL=6.1 picks the guest kernel, Debian's
# linux-source-<version> with mm-export-patch/<version>/.
#
# Kernel trees, builds, ccache and initramfs live in $(PMEMZC_CACHE)
# (default ~/.cache/pmem-zc), never in the repository.

SHELL := /bin/bash
FLAVOUR ?= test
# (scripts and tests pass the kernel on as PMEMZC_KERNEL)
# (KERNEL counts only on make's command line: the environment's is not ours)
ifeq ($(filter command line override,$(origin KERNEL)),)
KERNEL := $(or $(PMEMZC_KERNEL),6.12)
endif
export PMEMZC_FLAVOUR := $(FLAVOUR)
export PMEMZC_KERNEL := $(KERNEL)
PMEMZC_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/pmem-zc
export PMEMZC_CACHE
KDIR = $(PMEMZC_CACHE)/kernel-$(KERNEL)-$(FLAVOUR)

# out-of-tree modules built against the guest kernel
MODULE_DIRS := pmem-driver pmem-zc-demo/module net-tests/modules/warn_test \
	       net-tests/modules/page_ref_test

.PHONY: all deps kernel initramfs modules tools cli check check-both check-all demo shell bench soak fuzz fuzz-kernel deb clean distclean

all: modules initramfs tools cli

deps:
	@vm/install-deps.sh

# FLAVOUR=debian: Debian's own kernel, unpacked, not built (not through
# vm/build-kernel.sh, whose text keys every lab kernel build), and the
# .debs 45-deb-install's guest installs with the project's packages
kernel: deps
	@$(if $(filter debian,$(FLAVOUR)),vm/get-debian-kernel.sh && vm/get-install-debs.sh > /dev/null,vm/build-kernel.sh $(FLAVOUR))

initramfs: kernel
	@vm/build-initramfs.sh $(FLAVOUR)

# each module dir records the kernel it was built for (net-tests/run checks);
# the lab builds them with -Werror (a warning fails make, on both kernels),
# prd and pmem_zc with gcov on the test kernel (PMEMZC_GCOV, their Kbuild)
modules: kernel
	@for d in $(MODULE_DIRS); do \
		$(MAKE) -s -C $(KDIR) M=$(CURDIR)/$$d KCFLAGS=-Werror \
			$(if $(filter test,$(FLAVOUR)),PMEMZC_GCOV=y) modules || exit 1; \
		readlink -f $(KDIR) > $$d/.pmemzc-kernel; \
	done

# static guest-side test tools (gup_test from the kernel tree, ...)
tools: kernel
	@$(MAKE) -s -C net-tests/tools KSRC=$$(readlink -f $(KDIR)/source)

# the pmem-zc CLI (static: guests run it from /top)
cli:
	@$(MAKE) -s -C pmem-zc-demo/cli

# what CI runs: the whole suite on 6.12's test kernel (KASAN, lockdep),
# then the 6.1 subset on 6.1's bench kernel, each kernel built before its
# run, then the subset on Debian's own kernels (net-tests/check).
# KERNEL=... on the command line: the whole suite on that kernel alone.
# check-both: the subset on 6.1's test kernel instead (over CI's limit
# cold). check-all: every two-guest test on 6.1 too.
# (the kernels and flavours are net-tests/check's to pick: a KERNEL= or
# FLAVOUR= given to check-both or check-all would reach the makes of the
# tests through MAKEFLAGS, and is refused)
ifneq ($(filter command line,$(origin KERNEL) $(origin FLAVOUR)),)
check: all
	@net-tests/run

check-both check-all check-debian:
	$(error make $@ picks its kernels itself: no KERNEL= or FLAVOUR=)
else
check:
	@net-tests/check

check-both:
	@net-tests/check --debug

check-all:
	@net-tests/check --all

check-debian:
	@net-tests/check --debian
endif

demo: all
	@vm/demo.sh

shell: all
	@vm/shell.sh

bench:
	@$(MAKE) --no-print-directory FLAVOUR=bench all
	@PMEMZC_FLAVOUR=bench net-tests/bench/run

soak: all
	@net-tests/run --suite soak

fuzz:
	@$(MAKE) --no-print-directory -C pmem-driver/tests fuzz

FUZZ_CALLS ?= 1000000
FUZZ_SECS ?= 1800
fuzz-kernel: all
	@FUZZ_CALLS=$(FUZZ_CALLS) FUZZ_SECS=$(FUZZ_SECS) net-tests/run 71-zc-fuzz

# the Debian packages, built from a copy of the work tree in build/deb/
# (vm/build-deb.sh), with the tools of vm/packages-deb.txt
deb:
	@vm/install-deps.sh vm/packages-deb.txt
	@vm/build-deb.sh

clean:
	@for d in $(MODULE_DIRS); do \
		[ ! -e $(KDIR)/Makefile ] || $(MAKE) -s -C $(KDIR) M=$(CURDIR)/$$d clean; \
		find $$d \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
			-o -name '.*.cmd' -o -name '.*.o.d' -o -name '*.order' -o -name Module.symvers \
			-o -name .pmemzc-kernel \) -delete; \
	done
	@$(MAKE) -s -C pmem-zc-demo/cli clean
	@$(MAKE) -s -C net-tests/tools clean
	rm -rf results build

# clean, and this checkout's entries of the cache (vm/cache.sh drop)
distclean: clean
	@vm/cache.sh drop
