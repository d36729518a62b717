"""Listens on a Unix socket, accepts every connection and never answers: a daemon that is
stuck. Prints "listening" once ready; exits after SECONDS (default 30).

usage: silent_socket.py PATH [SECONDS]
"""
import os
import select
import signal
import socket
import sys
import time

# A test runner may block or ignore SIGTERM where it starts us from; its stop() must end us.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])

path = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
if os.path.exists(path):
    os.unlink(path)
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(16)
print("listening", flush=True)
held = []
end = time.monotonic() + seconds
while time.monotonic() < end:
    ready, _, _ = select.select([server], [], [], 0.1)
    if ready:
        held.append(server.accept()[0])
