# SPDX-License-Identifier: GPL-2.0
#
# Entry point. The two commands the README promises:
#   make check   set up, build both test kernels, run every check and test
#   make bench   set up, build the perf kernel, run the benchmark suite
# Everything is built in $(BUILD) (default ./build, ignored by git).

BUILD ?= $(CURDIR)/build
export BUILD

.PHONY: all check bench deps tree kernels perf debug patches vm splat-test clean help

all: help

help:
	@echo "make check     static checks, both kernels, kselftests + KUnit in QEMU"
	@echo "make bench     perf kernel + benchmark suite (CASE=name for one case)"
	@echo "make patches   export the series to $(BUILD)/patches (git format-patch)"
	@echo "make tree      unpack + patch the 6.12 tree in $(BUILD)/linux"
	@echo "make perf|debug  build one test kernel"
	@echo "make vm [KERNEL=perf] [JOB='cmd']  boot a kernel and run one command"

deps:
	@harness/deps.sh

tree: deps
	@harness/tree.sh

perf debug: tree
	@harness/kbuild.sh $@

kernels: perf debug

patches: tree
	@harness/patches.sh

vm:
	harness/vm.py --kernel $(or $(KERNEL),perf) -- $(or $(JOB),uname -a)

check:
	@harness/check.sh $(TESTS)

bench:
	@harness/bench.sh $(CASE)

clean:
	rm -rf $(BUILD) results
