#!/bin/sh
# Runs in the cgroup test's guest (lull-payload.service of the power-cut image, booted with this
# payload disk): lulld as root in a unit whose cgroup systemd delegates to it (Delegate=yes) on
# the guest's cgroup v2 hierarchy, run jobs with resource controls, each job's view to the host
# on the virtio port lull.agent; then the systemd host, from a second lulld as root and from the
# shipped system instance (user lull), whose pause freezes the job's unit; then power off.
set -u
P=/payload
port=/dev/virtio-ports/lull.agent
i=0
while [ ! -e $port ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
say() { printf '%s\n' "$*" > $port; }
trap 'systemctl poweroff' EXIT

cp -a $P/root/. / || { say "error install"; exit 1; }
# lulld holds jobs while the machine is offline, and the guest has no network device: the
# power-cut guest's dummy link with a default route that leads nowhere.
install -D -m 0644 $P/lull0.netdev /etc/systemd/network/lull0.netdev
install -D -m 0644 $P/lull0.network /etc/systemd/network/lull0.network
systemctl start systemd-networkd.service || { say "error networkd"; exit 1; }
say "hierarchy $(stat -fc %T /sys/fs/cgroup) $(cat /sys/fs/cgroup/cgroup.controllers)"
sock=/run/lull-cg/lull.sock
systemd-run --quiet --unit=lull-cg --property=Delegate=yes --property=Type=exec \
    /usr/bin/lulld --state-dir /var/lib/lull-cg --socket $sock || { say "error systemd-run"; exit 1; }
i=0
while ! lullctl --socket $sock status > /dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 1800 ] || { say "error lulld did not come up: $(journalctl -u lull-cg -o cat | tail -5 | tr '\n' ' ')"; exit 1; }
    sleep 0.1
done
say "log $(journalctl -u lull-cg -o cat | grep 'run jobs:' | tr '\n' ' ')"

# NAME SUBMIT-ARGUMENTS...: submits, waits for the end (logs --follow returns then, bounded:
# the guest may be emulated), reports the view, and what lulld and the kernel said if it hung.
job() {
    name=$1
    shift
    say "submitting $name"
    id=$(lullctl --socket $sock submit run --json "$@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
    [ -n "$id" ] || { say "error submit $name"; return; }
    if ! timeout 240 lullctl --socket $sock logs "$id" --follow --interval 0.2 > /dev/null 2>&1; then
        say "stuck $name $(lullctl --socket $sock show "$id" 2>&1 | tr '\n' ' ')"
        say "stuck $name journal: $(journalctl -u lull-cg -o cat | tail -15 | tr '\n' ' ')"
        say "stuck $name kernel: $(dmesg | tail -15 | tr '\n' ' ')"
    fi
    say "job $name $(lullctl --socket $sock show "$id" --json | tr -d '\n')"
}

job weights --cpu-weight 50 --io-weight 20 -- sh -c \
    'd=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup); cat $d/cpu.weight $d/io.weight $d/pids.max'
# Both in a double-forked child the command never reaps, so neither rusage nor the readings of
# its process group see them: only the cgroup's memory.peak and io.stat do.
job peak -- sh -c '(setsid python3 -c "import time; b = bytearray(100 << 20); time.sleep(0.3); open(\"/run/peak.done\", \"w\")" &)
    while [ ! -e /run/peak.done ]; do sleep 0.05; done'
job io -- sh -c '(setsid sh -c "dd if=/dev/zero of=/var/tmp/io.bin bs=1M count=8 oflag=direct 2> /dev/null; rm /var/tmp/io.bin; touch /run/io.done" &)
    while [ ! -e /run/io.done ]; do sleep 0.05; done'
job tasks --tasks-max 3 -- sh -c 'for i in 1 2 3 4 5 6; do sleep 1 & done; wait'
job memory --memory-max 32M -- python3 -c 'b = bytearray(256 << 20)'

# The systemd host on the same kernel: a second lulld whose commands are transient units of the
# system manager, measured by the unit's accounting.
sock=/run/lull-sd/lull.sock
printf '[run]\nhost = "systemd"\n' > /run/lull-sd.toml
systemd-run --quiet --unit=lull-sd --property=Type=exec \
    /usr/bin/lulld --state-dir /var/lib/lull-sd --socket $sock --config /run/lull-sd.toml || { say "error systemd-run lull-sd"; exit 1; }
i=0
while ! lullctl --socket $sock status > /dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 1800 ] || { say "error the second lulld did not come up"; exit 1; }
    sleep 0.1
done
job unit --network none -- python3 -c 'import time
t = time.process_time()
while time.process_time() - t < 1: pass
b = bytearray(64 << 20)
time.sleep(1.5)'

# The system instance: the shipped lulld.service (user lull) with the admin's opt-in to the
# systemd host (host = "systemd" and the jobs' polkit rule). The bus policy installed with it
# passes its FreezeUnit: a pause freezes the job's unit with the cgroup freezer instead of
# stopping its processes, resume thaws it. The bus reads the policy again once user lull
# exists, as the package's dbus trigger and `make install` have it do.
systemd-sysusers > /dev/null || { say "error sysusers"; exit 1; }
systemctl reload dbus.service || { say "error dbus reload"; exit 1; }
systemd-tmpfiles --create /usr/lib/tmpfiles.d/lull.conf || { say "error tmpfiles"; exit 1; }
useradd --create-home --groups lull-clients alice || { say "error useradd"; exit 1; }
printf '[run]\nhost = "systemd"\n' > /etc/lull/lull.toml
install -m 0644 /usr/share/doc/lull/examples/50-lull-jobs.rules /etc/polkit-1/rules.d/
systemctl try-restart polkit.service
systemctl daemon-reload
systemctl start lulld.socket || { say "error lulld.socket"; exit 1; }
alice() { runuser -u alice -- lullctl "$@"; }
# WHAT VALUE: waits up to 20 s for the unit's property WHAT to read VALUE.
wait_for() {
    i=0
    while [ "$(systemctl show -P "$1" "$unit")" != "$2" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
}
ticks() { awk '{ print $14 + $15 }' /proc/"$pid"/stat; }
id=$(alice submit run --json -- python3 -c 'import time
t = time.process_time()
while time.process_time() - t < 3: pass' | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
[ -n "$id" ] || { say "error submit to the system instance: $(journalctl -u lulld -o cat | tail -5 | tr '\n' ' ')"; exit 1; }
unit=lull-job-$id.service
wait_for ActiveState active
pid=$(systemctl show -P MainPID "$unit")
i=0
while [ "$(ticks)" -lt 30 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
alice pause "$id" > /dev/null || say "stuck pause: $(journalctl -u lulld -o cat | tail -5 | tr '\n' ' ')"
wait_for FreezerState frozen
before=$(ticks)
sleep 1
say "freeze $(systemctl show -P FreezerState "$unit") $(awk '{ print $3 }' /proc/"$pid"/stat) $(($(ticks) - before)) $(alice show "$id" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])')"
alice resume "$id" > /dev/null
wait_for FreezerState running
say "thaw $(systemctl show -P FreezerState "$unit")"
timeout 60 runuser -u alice -- lullctl logs "$id" --follow --interval 0.2 > /dev/null 2>&1
say "job paused $(alice show "$id" --json | tr -d '\n')"
say "done"
