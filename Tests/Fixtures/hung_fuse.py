#!/usr/bin/env python3
"""A FUSE file system whose server stops answering, as a dead NFS server or a hung FUSE daemon
does. It answers the kernel's INIT, GETATTR of its root, and the first ANSWERED lookups of
`sub`, a directory (not cached: each path walk looks it up again); then nothing, so a `stat`,
`chdir` or `open` of `sub` waits in the kernel for ever. Killing this process closes
/dev/fuse, which ends every waiting request with ENOTCONN.

    hung_fuse.py MOUNTPOINT [ANSWERED]

Prints "ready" once mounted; unmounts (lazily) on SIGTERM. Needs root.
"""
import ctypes
import os
import signal
import struct
import sys

FUSE_LOOKUP, FUSE_GETATTR, FUSE_INIT = 1, 3, 26
IN_HEADER = struct.Struct("=IIQQIIII")  # len, opcode, unique, nodeid, uid, gid, pid, padding
OUT_HEADER = struct.Struct("=IiQ")  # len, error, unique

mountpoint = sys.argv[1]
answered = int(sys.argv[2]) if len(sys.argv) > 2 else 0
libc = ctypes.CDLL(None, use_errno=True)
device = os.open("/dev/fuse", os.O_RDWR)
options = f"fd={device},rootmode=40000,user_id=0,group_id=0,allow_other".encode()
if libc.mount(b"lull-hung", mountpoint.encode(), b"fuse.lullhung", 0, options) != 0:
    sys.exit(f"mount {mountpoint}: {os.strerror(ctypes.get_errno())}")


def unmount(*_):
    libc.umount2(mountpoint.encode(), 2)  # MNT_DETACH
    os._exit(0)


signal.signal(signal.SIGTERM, unmount)
# A parent may have left signals blocked (Foundation's Process passes its thread's mask on).
signal.pthread_sigmask(signal.SIG_SETMASK, [])


def reply(unique: int, body: bytes) -> None:
    os.write(device, OUT_HEADER.pack(OUT_HEADER.size + len(body), 0, unique) + body)


def directory(node: int) -> bytes:
    """fuse_attr: ino, size, blocks, atime, mtime, ctime, their nsecs, mode (a 0755
    directory), nlink, uid, gid, rdev, blksize, flags."""
    return struct.pack("=QQQQQQIIIIIIIIII", node, 0, 0, 0, 0, 0, 0, 0, 0, 0o40755, 2, 0, 0, 0, 4096, 0)


def attributes(node: int) -> bytes:
    # fuse_attr_out: attr_valid (0: ask again each time), attr_valid_nsec, dummy, attr.
    return struct.pack("=QII", 0, 0, 0) + directory(node)


def entry(node: int) -> bytes:
    # fuse_entry_out: nodeid, generation, entry_valid, attr_valid (all 0: never cached), nsecs.
    return struct.pack("=QQQQII", node, 1, 0, 0, 0, 0) + directory(node)


while True:
    request = os.read(device, (1 << 20) + 4096)
    length, opcode, unique, nodeid, *_ = IN_HEADER.unpack_from(request)
    if opcode == FUSE_INIT:
        major, minor, readahead, flags = struct.unpack_from("=IIII", request, IN_HEADER.size)
        # fuse_init_out: major, minor, max_readahead, flags, max_background,
        # congestion_threshold, max_write, time_gran, max_pages, map_alignment, flags2, unused[7].
        body = struct.pack("=IIIIHHIIHHI7I", 7, min(minor, 31), readahead, 0, 16, 12, 4096, 1, 1, 0, 0, *[0] * 7)
        reply(unique, body)
        print("ready", flush=True)
    elif opcode == FUSE_GETATTR and nodeid in (1, 2):
        reply(unique, attributes(nodeid))
    elif opcode == FUSE_LOOKUP and nodeid == 1 and answered > 0 and request[IN_HEADER.size :].split(b"\0")[0] == b"sub":
        answered -= 1
        reply(unique, entry(2))
    # Everything else (lookups past the budget first of all) is never answered.
