#!/bin/sh
# Runs in the power-cut test's guest at every boot (lull-payload.service in the guest image):
# installs lulld from the payload disk on the first boot, then reports what the last cut left
# and drives the workload (agent.py). The host reads everything from the virtio port lull.agent.
set -u
P=/payload
port=/dev/virtio-ports/lull.agent
# udev makes the port's name; bounded wait.
i=0
while [ ! -e $port ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
say() { printf '%s\n' "$*" > $port; }
fail() { say "error $*"; exit 1; }

if [ ! -e /var/lib/lull-powercut-installed ]; then
    # What `make install-files` produced on the host, plus the Swift runtime the debug build needs.
    cp -a $P/root/. / || fail "install"
    systemd-sysusers || fail "sysusers"
    systemd-tmpfiles --create /usr/lib/tmpfiles.d/lull.conf || fail "tmpfiles"
    install -d -m 0755 /srv/dl || fail "mkdir /srv/dl"
    install -D -m 0644 $P/lull.toml /etc/lull/lull.toml
    install -D -m 0644 $P/lulld-test.conf /etc/systemd/system/lulld.service.d/test.conf
    # lulld holds jobs while the machine is offline (no default route), and the guest has no
    # network device: a dummy link with a default route that leads nowhere; the workload is on
    # loopback.
    install -D -m 0644 $P/lull0.netdev /etc/systemd/network/lull0.netdev
    install -D -m 0644 $P/lull0.network /etc/systemd/network/lull0.network
    systemctl enable systemd-networkd.service 2>/dev/null || fail "networkd"
    systemctl daemon-reload
    # The installation itself is not under test: make it durable before any cut can come.
    sync
    touch /var/lib/lull-powercut-installed
    sync
fi

systemctl start systemd-networkd.service || fail "networkd"
systemd-run --quiet --unit=lull-powercut-www --property=Type=exec python3 $P/server.py || fail "server"
exec python3 $P/agent.py
