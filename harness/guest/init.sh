#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test guest: mount what a read-only 9p root needs, run the job
# the host left in /run/results/job.sh, save dmesg, report, power off.
# Each process costs up to a second on the debug kernel under TCG, so the
# mounts are one mount(8) over a table and the rest are builtins.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1

mount -t proc proc /proc
mount -t tmpfs tmpfs /run

# mounted DIR: DIR is a mount point (from /proc/self/mounts, no process)
mounted()
{
	local dev dir rest

	while read -r dev dir rest; do
		[ "$dir" = "$1" ] && return 0
	done < /proc/self/mounts
	return 1
}

# The table, in mount order. The checkout and the build tree are mounted
# again at their own paths after the tmpfs mounts, which may cover them
# (CI clones anywhere); read-only and unchanged while the guest runs, they
# are cached like the root. X-mount.mkdir makes what the read-only root
# lacks.
fstab()
{
	local p9=trans=virtio,version=9p2000.L,msize=512000 d t

	echo "sys /sys sysfs defaults 0 0"
	mounted /dev || echo "dev /dev devtmpfs defaults 0 0"
	echo "devpts /dev/pts devpts X-mount.mkdir 0 0"
	echo "tmpfs /dev/shm tmpfs X-mount.mkdir 0 0"
	for d in /tmp /var/tmp /root /var/log; do
		mounted "$d" || echo "tmpfs $d tmpfs defaults 0 0"
	done
	for t in top build; do
		d=$I82574_TOP
		[ $t = build ] && d=$I82574_BUILD
		mounted "$d" || echo "$t $d 9p $p9,cache=loose,ro,X-mount.mkdir 0 0"
	done
	echo "debugfs /sys/kernel/debug debugfs defaults 0 0"
	echo "results /run/results 9p $p9,X-mount.mkdir 0 0"
}
# (libmount does not parse a pipe)
fstab > /run/fstab
mount -a -T /run/fstab
# as udev would: bash's process substitution opens /dev/fd/N
ln -s /proc/self/fd /dev/fd
echo i82574-guest > /proc/sys/kernel/hostname
ip link set lo up

read -r up rest < /proc/uptime
echo "I82574-HARNESS: guest up after $up s"
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
# Power off (drivers' .shutdown run, make check's shutdown-wol reads what
# i82574's wrote); reset if that has not happened in 5 s. The wait is
# bash's own: once device_shutdown() has taken the 9p root away, starting
# /usr/bin/sleep fails at once and the reset cut the power-off short.
mkfifo /run/.poweroff
echo o > /proc/sysrq-trigger
read -r -t 5 <> /run/.poweroff || true
echo b > /proc/sysrq-trigger
