#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test guest, /init of its RAM root (harness/initramfs.py):
# mount the kernel's file systems and the host's results share, run the
# job the host left in /run/results/job.sh, save dmesg, report, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
# 9p cannot freeze and restore its queues: a test that suspends the system
# unmounts this first (lib.sh's host_share_detach), so nothing may keep a
# file of it open; the job runs from a copy
mkdir -p /run/results
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /run/results
# shared, as systemd makes every mount: the copies in the mount namespaces
# ip netns exec makes (slaves of these) then go with an unmount here
mount --make-rshared /
cp /run/results/job.sh /run/job.sh
# as udev would: bash's process substitution opens /dev/fd/N
ln -s /proc/self/fd /dev/fd
echo i82574-guest > /proc/sys/kernel/hostname
ip link set lo up

read -r up rest < /proc/uptime
echo "I82574-HARNESS: guest up after $up s"
rc=0
bash -e /run/job.sh || rc=$?

# The debug kernel's leak report is a file of the results, which vm.py reads
# like the console (any entry fails the boot); the scanner itself prints only
# a count. A report or a dmesg that cannot be saved fails the job.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	if ! cat /sys/kernel/debug/kmemleak > /run/results/kmemleak.txt; then
		echo "I82574-HARNESS: kmemleak report not saved"
		rc=1
	fi
fi
if ! dmesg > /run/results/dmesg.txt; then
	echo "I82574-HARNESS: dmesg not saved"
	rc=1
fi
sync
echo "I82574-HARNESS: job exit $rc"
# Power off (drivers' .shutdown run, make check's shutdown-wol reads what
# i82574's wrote); if that has not happened in 5 s (bash's own wait, no
# process), say so and reset: vm.py fails a boot that stops without the
# power-off message.
mkfifo /run/.poweroff
echo o > /proc/sysrq-trigger
read -r -t 5 <> /run/.poweroff || true
echo "I82574-HARNESS: power-off fallback: no power-off in 5 s, resetting"
echo b > /proc/sysrq-trigger
