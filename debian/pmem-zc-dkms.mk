# SPDX-License-Identifier: GPL-2.0
# What MAKE and CLEAN of pmem-zc's dkms.conf run in its DKMS build directory
# (debian/pmem-zc-dkms.dkms says why): prd built for this kernel from
# prd-dkms's sources into prd/ there, for its Module.symvers and prd.h, then
# pmem_zc against them. That prd.ko is not installed: prd-dkms's is, built
# from the same sources for the same kernel, so the symbol CRCs agree.
#
#   make -f pmem-zc-dkms.mk KDIR=TREE BUILD=DIR PRD_SRC=/usr/src/prd-VERSION
#   make -f pmem-zc-dkms.mk KDIR=TREE BUILD=DIR clean

BUILD ?= $(CURDIR)
KDIR ?= /lib/modules/$(shell uname -r)/build
PRD_SRC ?= /usr/src/prd-$(shell head -n1 $(BUILD)/VERSION)

all:
	@test -f $(PRD_SRC)/Kbuild || { \
		echo "no prd sources in $(PRD_SRC): prd-dkms of this version is missing" >&2; \
		exit 1; }
	rm -rf $(BUILD)/prd
	cp -r $(PRD_SRC) $(BUILD)/prd
	$(MAKE) -C $(KDIR) M=$(BUILD)/prd modules
	$(MAKE) -C $(KDIR) M=$(BUILD)/module PRD_DIR=$(BUILD)/prd modules

clean:
	rm -rf $(BUILD)/prd
	$(MAKE) -C $(KDIR) M=$(BUILD)/module clean

.PHONY: all clean
