#!/bin/sh
# Builds the power-cut test's guest from the systemd-nspawn test's debootstrapped root: Debian's
# cloud kernel and its initramfs (installed into a copy of the root from the root's own apt
# sources, so that initramfs-tools builds the initramfs the kernel's virtio modules need) and an
# ext4 image of that root. Usage: build-image.sh NSPAWN_ROOT OUT_DIR (OUT_DIR must not exist).
# Writes OUT_DIR/vmlinuz, OUT_DIR/initrd.img and OUT_DIR/root.img.
set -eu
source_root=$1
out=$2
work=$out.partial
rm -rf "$work"
mkdir -p "$work"
root=$work/root
cp -a --reflink=auto "$source_root" "$root"

# The kernel from the machine's Debian mirror. nspawn (not chroot) gives apt and mkinitramfs the
# /proc, /sys and /dev they expect; the host's network is shared for the download.
systemd-nspawn --quiet --register=no --keep-unit --machine=lull-powercut-image-$$ --as-pid2 --directory="$root" \
    --setenv=DEBIAN_FRONTEND=noninteractive \
    sh -ec 'apt-get update -qq
        apt-get install -y -qq --no-install-recommends linux-image-cloud-amd64 initramfs-tools e2fsprogs >/dev/null
        apt-get clean
        rm -rf /var/lib/apt/lists/*'

cp "$root"/boot/vmlinuz-* "$work/vmlinuz"
cp "$root"/boot/initrd.img-* "$work/initrd.img"
rm -f "$root"/boot/vmlinuz-* "$root"/boot/initrd.img-* "$root"/vmlinuz* "$root"/initrd.img*

echo lull-guest > "$root/etc/hostname"
cat > "$root/etc/fstab" <<'FSTAB'
LABEL=lullroot    /        ext4 defaults 0 1
LABEL=lulldata    /srv     ext4 defaults 0 2
LABEL=lullpayload /payload ext4 ro       0 0
FSTAB
mkdir -p "$root/srv" "$root/payload"

# At every boot the payload disk's boot.sh takes over: what lulld and the test need lives there,
# made anew for each run, so this image does not change when lulld does.
cat > "$root/etc/systemd/system/lull-payload.service" <<'UNIT'
[Unit]
Description=Lull power-cut test payload
RequiresMountsFor=/payload /srv /var/lib
After=systemd-udev-settle.service systemd-tmpfiles-setup.service
[Service]
Type=simple
ExecStart=/bin/sh /payload/boot.sh
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/lull-payload.service "$root/etc/systemd/system/multi-user.target.wants/lull-payload.service"
# Nothing logs in, and nothing periodic should run into a cut.
for unit in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer apt-daily-upgrade.timer \
    e2scrub_all.timer e2scrub_reap.service fstrim.timer man-db.timer dpkg-db-backup.timer; do
    ln -sf /dev/null "$root/etc/systemd/system/$unit"
done

truncate -s 2G "$work/root.img"
mkfs.ext4 -q -F -L lullroot -d "$root" "$work/root.img"
rm -rf "$root"
mv "$work" "$out"
