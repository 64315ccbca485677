# SPDX-License-Identifier: GPL-2.0
#
# zswap_wb: the two commands of README.md are
#   make demo    build the hooked kernel and the module, boot them in QEMU,
#                run the A/B demo and print its table
#   make check   the whole test suite (host checks and VM tests), KTAP
# Other targets: kernel, module, initramfs, vm (a shell in the VM), bench
# [BENCH=name], kernel-deb, check-versions, rootfs (the Debian 12 VM image),
# check-fleet (install, reboot and purge of the packages in it), clean.
# make deb builds the Debian packages zswap-wb-dkms and zswbctl.

SHELL := /bin/bash
TOP := $(CURDIR)
OBJ = $(shell . tools/kernel/common.sh && zswb_dirs && echo $$ZSWB_OBJ)

.PHONY: all kernel module initramfs demo check vm bench kernel-deb deb check-versions clean
.PHONY: rootfs check-fleet

all: module

kernel:
	bash tools/kernel/build.sh

module: kernel
	$(MAKE) -C $(OBJ) M=$(TOP) W=1 modules
	$(MAKE) -C $(OBJ) M=$(TOP)/selftests/zswap_wb/modules modules

initramfs: module
	bash tools/vm/mkinitramfs.sh

demo: initramfs
	bash tools/demo.sh

check: initramfs
	bash selftests/run.sh

vm: initramfs
	bash tools/vm/run.sh --shell

bench: initramfs
	bash tools/bench/run.sh $(BENCH)

kernel-deb:
	bash tools/kernel/build-deb.sh

# The packages zswap-wb-dkms and zswbctl (debian/), built from a copy of the
# tree's files (tracked or new, not ignored) in $(DEBDIR), where the .deb,
# .dsc and .changes files land.
DEBDIR = $(shell . tools/kernel/common.sh && echo $$ZSWB_CACHE/deb)
deb:
	. tools/kernel/common.sh && zswb_need dpkg-dev debhelper dh-dkms git gcc libc6-dev make
	rm -rf $(DEBDIR) && mkdir -p $(DEBDIR)/zswap-wb
	git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - --ignore-failed-read -cf - | tar -C $(DEBDIR)/zswap-wb -xf -
	cd $(DEBDIR)/zswap-wb && dpkg-buildpackage --build=full -us -uc
	ls -1 $(DEBDIR)/*.deb $(DEBDIR)/*.changes

check-versions:
	bash tools/kernel/check-versions.sh

rootfs:
	bash tools/vm/mkrootfs.sh

check-fleet: kernel rootfs
	bash selftests/fleet_test.sh

clean:
	-$(MAKE) -C $(OBJ) M=$(TOP) clean
	-$(MAKE) -C $(OBJ) M=$(TOP)/selftests/zswap_wb/modules clean
	$(MAKE) -C tools/zswbctl clean
