#!/usr/bin/env python3
"""Runs a command as on a kernel before Linux 5.9: close_range(2) fails with ENOSYS (a seccomp
filter, x86_64 numbering). Descriptor 900 is left open, not close-on-exec, as a careless parent
of lulld would leave one.

    without_close_range.py COMMAND [ARG...]
"""
import ctypes
import os
import struct
import sys

CLOSE_RANGE = 436
ENOSYS = 38
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW = 0x00050000, 0x7FFF0000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_RET_K = 0x20, 0x15, 0x06


def instruction(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


program = b"".join(
    [
        instruction(BPF_LD_W_ABS, 0, 0, 0),  # the system call's number
        instruction(BPF_JEQ_K, 0, 1, CLOSE_RANGE),
        instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS),
        instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
    ]
)
filters = ctypes.create_string_buffer(program)


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


libc = ctypes.CDLL(None, use_errno=True)
fprog = Program(len(program) // 8, ctypes.addressof(filters))
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
    sys.exit(f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(ctypes.get_errno())}")
if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
    sys.exit(f"prctl(PR_SET_SECCOMP): {os.strerror(ctypes.get_errno())}")
leaked = os.open("/dev/null", os.O_RDONLY)
os.dup2(leaked, 900, inheritable=True)
os.execvp(sys.argv[1], sys.argv[1:])
