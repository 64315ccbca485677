# SPDX-License-Identifier: GPL-2.0
#
# zswap_wb: the two commands of README.md are
#   make demo    build the hooked kernel and the module, boot them in QEMU,
#                run the A/B demo and print its table
#   make check   the whole test suite (host checks and VM tests), KTAP
# Other targets: kernel, module, initramfs, vm (a shell in the VM), bench
# [BENCH=name], check-debug (the VM suite on a debug kernel), kernel-deb,
# check-versions, rootfs (the Debian 12 VM image), check-fleet (install,
# reboot and purge of the packages in a Debian 12 and a Debian 13 VM, a
# KTAP block each), check-prometheus (a fleet A/B end to end: Debian's
# Prometheus scraping Debian 12 VMs with node_exporter, the module and the
# zswbctl package; zswbctl fleet's verdicts), bench-apps (the policies on real applications in the
# Debian 12 image: a kernel build, Redis and MariaDB), figures (the
# pictures of Documentation/results.rst from bench-results/), clean.
# make deb builds the Debian packages zswap-wb-dkms, zswbctl, zswbctl-plot and
# zswap-wb-prometheus-rules. ZSWB_SUITE=trixie makes kernel-deb, deb and
# rootfs for Debian 13 (built in a trixie environment, in $ZSWB_CACHE/trixie)
# instead of Debian 12 (bookworm, the default).

SHELL := /bin/bash
TOP := $(CURDIR)
OBJ = $(shell . tools/kernel/common.sh && zswb_dirs && echo $$ZSWB_OBJ)

# The Debian releases the packages are built and tested for.
SUITES := bookworm trixie
ZSWB_SUITE ?= bookworm
FLEET_SUITES ?= $(SUITES)
ifneq ($(filter-out $(SUITES),$(ZSWB_SUITE) $(FLEET_SUITES)),)
$(error ZSWB_SUITE and FLEET_SUITES take bookworm or trixie, not '$(filter-out $(SUITES),$(ZSWB_SUITE) $(FLEET_SUITES))')
endif

.PHONY: all kernel module initramfs demo check check-debug vm bench kernel-deb deb check-versions clean
.PHONY: rootfs check-fleet check-prometheus bench-apps figures

all: module

kernel:
	bash tools/kernel/build.sh

# The module built against another kernel (the debug one) is rebuilt.
module: kernel
	@if [ "$$(cat .zswb-built-for 2>/dev/null)" != "$(OBJ)" ]; then \
		$(MAKE) -s -C $(OBJ) M=$(TOP) clean; \
		$(MAKE) -s -C $(OBJ) M=$(TOP)/selftests/zswap_wb/modules clean; \
	fi
	$(MAKE) -C $(OBJ) M=$(TOP) W=1 modules
	$(MAKE) -C $(OBJ) M=$(TOP)/selftests/zswap_wb/modules modules
	echo $(OBJ) > .zswb-built-for

initramfs: module
	bash tools/vm/mkinitramfs.sh

demo: initramfs
	bash tools/demo.sh

check: initramfs
	bash selftests/run.sh

# The VM suite on a kernel with KASAN, lockdep, kmemleak and the other
# checkers (tools/kernel/debug.config), workloads scaled down for it:
# every VM group whose settings do not say debug=no, or DEBUG_SUITES.
DEBUG_SUITES ?= vm
check-debug:
	ZSWB_FLAVOUR=debug $(MAKE) initramfs
	ZSWB_FLAVOUR=debug ZSWB_TEST_SIZE=64 ZSWB_TEST_CG_MAX=24M ZSWB_TEST_PASSES=1 \
		ZSWB_TEST_SCALE=4 ZSWB_TEST_HOSTLOAD_SLOW=20 ZSWB_TEST_HOSTLOAD_KPAGE_SLICES=200 \
		ZSWB_VM_TIMEOUT_SCALE=6 \
		bash selftests/run.sh $(DEBUG_SUITES)

vm: initramfs
	bash tools/vm/run.sh --shell

bench: initramfs
	bash tools/bench/run.sh $(BENCH)
	$(MAKE) -s figures

# The figures of Documentation/results.rst, from bench-results/*.json, with
# Debian's matplotlib (for Debian's python3).
figures:
	. tools/kernel/common.sh && zswb_need python3-matplotlib
	/usr/bin/python3 tools/bench/report.py figures bench-results Documentation/figures

# The policies on real applications from Debian packages, in the Debian 12
# image with them (built here): also make bench BENCH=apps. APPS="redis"
# (or redis:disk ...) runs one workload's comparisons.
bench-apps: module
	bash tools/bench/apps/run.sh $(APPS)
	$(MAKE) -s figures

kernel-deb:
	bash tools/kernel/build-deb.sh

# The packages zswap-wb-dkms, zswbctl, zswbctl-plot and
# zswap-wb-prometheus-rules (debian/), built from a copy of the tree's
# files (tracked or new, not ignored) in $(DEBDIR), where the .deb, .dsc
# and .changes files land. For trixie, dpkg-buildpackage runs in the trixie
# environment (tools/kernel/in-suite.sh), so the dependencies are trixie's.
ifeq ($(ZSWB_SUITE),bookworm)
DEBDIR = $(shell . tools/kernel/common.sh && echo $$ZSWB_CACHE/deb)
DEB_BUILD_DEPS := dpkg-dev debhelper dh-dkms gcc libc6-dev make pkg-config \
	libcurl4-openssl-dev libjansson-dev
IN_SUITE :=
else
DEBDIR = $(shell . tools/kernel/common.sh && echo $$ZSWB_CACHE/$(ZSWB_SUITE)/deb)
DEB_BUILD_DEPS :=
IN_SUITE := bash tools/kernel/in-suite.sh $(ZSWB_SUITE)
endif
deb:
	. tools/kernel/common.sh && zswb_need git $(DEB_BUILD_DEPS)
	rm -rf $(DEBDIR) && mkdir -p $(DEBDIR)/zswap-wb
	git ls-files -z --cached --others --exclude-standard | \
		tar --null -T - --ignore-failed-read -cf - | tar -C $(DEBDIR)/zswap-wb -xf -
	$(IN_SUITE) sh -c 'cd $(DEBDIR)/zswap-wb && dpkg-buildpackage --build=full -us -uc'
	ls -1 $(DEBDIR)/*.deb $(DEBDIR)/*.changes

check-versions:
	bash tools/kernel/check-versions.sh

rootfs:
	bash tools/vm/mkrootfs.sh

# Builds what it installs: the packages of the module and tool, and of the
# hooked kernel (make kernel-deb, the long part), then tests them on their
# release's image; for each of FLEET_SUITES in turn (default bookworm,
# then trixie), a KTAP block each. FLEET_SUITES=trixie runs one.
check-fleet: kernel
	@rc=0; for s in $(FLEET_SUITES); do \
		echo "# check-fleet: $$s"; \
		if $(MAKE) ZSWB_SUITE=$$s rootfs deb kernel-deb; then \
			ZSWB_SUITE=$$s bash selftests/fleet_test.sh || rc=1; \
		else \
			echo "# check-fleet: building the $$s packages failed"; rc=1; \
		fi; \
	done; exit $$rc

# The guests boot the test kernel (make module builds it) with the zswbctl
# package of make deb; Debian's prometheus runs on this machine: 8 hosts,
# two at a time (selftests/prometheus_test.sh).
check-prometheus: module deb
	bash selftests/prometheus_test.sh

clean:
	-$(MAKE) -C $(OBJ) M=$(TOP) clean
	-$(MAKE) -C $(OBJ) M=$(TOP)/selftests/zswap_wb/modules clean
	$(MAKE) -C tools/zswbctl clean
