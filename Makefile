# SPDX-License-Identifier: GPL-2.0
#
# zswap_wb: the two commands of README.md are
#   make demo    build the hooked kernel and the module, boot them in QEMU,
#                run the A/B demo and print its table
#   make check   the whole test suite (host checks and VM tests), KTAP
# Other targets: kernel, module, initramfs, vm (a shell in the VM), bench
# [BENCH=name], kernel-deb, check-versions, clean.

SHELL := /bin/bash
TOP := $(CURDIR)
OBJ = $(shell . tools/kernel/common.sh && zswb_dirs && echo $$ZSWB_OBJ)

.PHONY: all kernel module initramfs demo check vm bench kernel-deb check-versions clean

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

check-versions:
	bash tools/kernel/check-versions.sh

clean:
	-$(MAKE) -C $(OBJ) M=$(TOP) clean
	-$(MAKE) -C $(OBJ) M=$(TOP)/selftests/zswap_wb/modules clean
	$(MAKE) -C tools/zswbctl clean
