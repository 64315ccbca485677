# SPDX-License-Identifier: GPL-2.0
#
# Included by each group's Makefile, as the kernel's groups include
# tools/testing/selftests/lib.mk. A group's Makefile sets:
#   TEST_PROGS   its tests, in the order run_group.sh runs them
#   TEST_FILES   what they read beside them (config, settings, a *.lib)
# and gets kselftest's emit_tests ("GROUP:TEST", one a line). The tests
# run in the test VM, which has no make: run_group.sh reads TEST_PROGS
# itself (progs.sh), and make check boots a VM per group; so there is no
# run_tests target here (the tests load modules and drive reclaim, and
# need the guest's helpers and ktap_helpers.sh beside them).

COLLECTION := $(notdir $(CURDIR))

all:

emit_tests:
	@for TEST in $(TEST_PROGS); do echo "$(COLLECTION):$$TEST"; done

clean:

.PHONY: all emit_tests clean
