# SPDX-License-Identifier: GPL-2.0
#
# Entry point. The two commands the README promises:
#   make check   set up, build both test kernels, run every check and test
#   make bench   set up, build the perf kernel, run the benchmark suite
# Everything is built in $(BUILD) (default ./build, ignored by git).

BUILD ?= $(CURDIR)/build
export BUILD

.PHONY: all check bench soak ppfail kcsan hostprof deps tree kernels perf debug patches vm splat-test clean help

all: help

help:
	@echo "make check     static checks, both kernels, kselftests + KUnit in QEMU"
	@echo "make bench     perf kernel + benchmark suite (CASE=name for one case)"
	@echo "make patches   export the series to $(BUILD)/patches (git format-patch)"
	@echo "make tree      unpack + patch the 6.12 tree in $(BUILD)/linux"
	@echo "make perf|debug  build one test kernel"
	@echo "make vm [KERNEL=perf] [JOB='cmd']  boot a kernel and run one command"
	@echo "make soak [KERNEL=perf] [SOAK_SECS=600]  the long robustness soak"
	@echo "make ppfail    upstream hw/pp_alloc_fail.py on a fail_function kernel"
	@echo "make kcsan     the dispatch_limit tests on a KCSAN kernel"
	@echo "make hostprof  perf on the QEMU process under TCP/UDP load (quiet host)"

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

# the robustness soak (pktgen + iperf3 both ways, dispatch_limit changing
# every second, exact pktgen accounting); make check runs a 20 s one. On
# one host thread: the perf kernel patches its static branches in place
# (harness/configs/perf.config).
soak: tree
	@harness/kbuild.sh $(or $(KERNEL),perf)
	harness/vm.py --kernel $(or $(KERNEL),perf) --one-thread --timeout $$(($(or $(SOAK_SECS),600) * 3 + 600)) \
		--results results/soak -- TEST_TIMEOUT=$$(($(or $(SOAK_SECS),600) * 2 + 300)) \
		harness/guest/run-tests.sh \
		CASES=soak,SOAK_SECS=$(or $(SOAK_SECS),600):tools/testing/selftests/drivers/net/i82574/robustness.sh

# upstream hw/pp_alloc_fail.py: a third kernel (perf + fail_function) and a
# newer ethtool than Debian 12's; make check runs the same injection itself
ppfail: tree
	@harness/ppfail.sh

# the dispatch_limit tests on a KCSAN kernel (a third kernel, about 25
# minutes cold); any data race report fails
kcsan: tree
	@harness/kcsan.sh

# where the host CPU goes while the guest moves traffic: perf on QEMU
hostprof: tree
	@harness/hostprof.sh

check:
	@harness/check.sh $(TESTS)

bench:
	@harness/bench.sh $(CASE)

clean:
	rm -rf $(BUILD) results
