#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test guest: mount what a read-only 9p root needs, run the job
# the host left in /run/results/job.sh, save dmesg, report, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1

mount -t proc proc /proc
mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
for d in /tmp /run /var/tmp /root /var/log; do
	mountpoint -q "$d" || mount -t tmpfs tmpfs "$d"
done
# The checkout and the build tree may live under /tmp (CI clones anywhere).
for t in top build; do
	d=$I82574_TOP
	[ $t = build ] && d=$I82574_BUILD
	mountpoint -q "$d" && continue
	mkdir -p "$d" 2>/dev/null
	# read-only and unchanged while the guest runs: cache it like the root
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro "$t" "$d"
done
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /run/results
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /run/results
hostname i82574-guest
ip link set lo up

echo "I82574-HARNESS: guest up after $(cut -d' ' -f1 /proc/uptime) s"
rc=0
bash -e /run/results/job.sh || rc=$?

if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > /run/results/kmemleak.txt
	# The scanner prints only a count; put the reports where the splat check reads.
	cat /run/results/kmemleak.txt > /dev/kmsg 2>/dev/null || true
fi
dmesg > /run/results/dmesg.txt
sync
echo "I82574-HARNESS: job exit $rc"
echo o > /proc/sysrq-trigger
sleep 5
echo b > /proc/sysrq-trigger
