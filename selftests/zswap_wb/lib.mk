# SPDX-License-Identifier: GPL-2.0
#
# Included by each group's Makefile, as the kernel's groups include
# tools/testing/selftests/lib.mk. A group's Makefile sets:
#   TEST_PROGS   its tests, in the order run_group.sh runs them
#   TEST_FILES   what they read beside them (config, settings, a *.lib)
# and gets kselftest's targets:
#   make -C GROUP run_tests    the group on the running kernel, through
#                              ../run_group.sh (the test VM's initramfs has
#                              no make: run_group.sh reads TEST_PROGS itself)
#   make -C GROUP emit_tests   "GROUP:TEST", one a line
# run_tests loads zswap_wb and test modules and drives reclaim: it refuses
# a kernel without the zswap writeback hook (patches/), such as the
# machine that builds the tree; make check runs the groups in the test VM.

COLLECTION := $(notdir $(CURDIR))
HOOK_SYMBOL := zswap_wb_register

all:

run_tests:
	@grep -q ' $(HOOK_SYMBOL)$$' /proc/kallsyms || \
		{ echo "$(COLLECTION): the running kernel has no zswap writeback hook" \
			"($(HOOK_SYMBOL)); the tests run in the test VM: make check" >&2; exit 1; }
	@cd .. && ./run_group.sh $(COLLECTION)

emit_tests:
	@for TEST in $(TEST_PROGS); do echo "$(COLLECTION):$$TEST"; done

clean:

.PHONY: all run_tests emit_tests clean
