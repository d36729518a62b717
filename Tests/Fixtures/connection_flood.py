"""Opens COUNT connections to a Unix socket, each with a request head sent only in part (no
blank line), and holds them. Prints one JSON line after WAIT seconds: how many the server has
closed, by the status and error code of what it sent first ("closed" for nothing), one message
of each kind, the slowest close, and how many are still held. Then holds those until the file
RELEASE exists (HOLD seconds at most), closes everything and prints "released".

usage: connection_flood.py SOCKET COUNT RELEASE [WAIT] [HOLD]
"""
import json
import os
import select
import signal
import socket
import sys
import time

# A test runner may block or ignore SIGTERM where it starts us from; its stop() must end us.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])

path, count, release = sys.argv[1], int(sys.argv[2]), sys.argv[3]
wait = float(sys.argv[4]) if len(sys.argv) > 4 else 2.0
hold = float(sys.argv[5]) if len(sys.argv) > 5 else 20.0

started = {}  # socket -> when its half request went out
for _ in range(count):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    give_up = time.monotonic() + 5
    while True:
        try:
            s.connect(path)
            break
        except BlockingIOError:
            # The listen backlog is full for now: the server has not caught up with us.
            if time.monotonic() > give_up:
                raise
            time.sleep(0.001)
    started[s] = time.monotonic()
    try:
        s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: lull\r\n")
    except OSError:
        pass  # already refused and closed: the answer is still there to read
    s.setblocking(False)

received = {s: b"" for s in started}
closed = {}  # socket -> seconds from its request to its close
by_fd = {s.fileno(): s for s in started}
poller = select.poll()  # select() stops at descriptor 1023
for s in started:
    poller.register(s, select.POLLIN)
deadline = time.monotonic() + wait
while time.monotonic() < deadline and len(closed) < len(started):
    for fd, _ in poller.poll(50):
        s = by_fd[fd]
        try:
            chunk = s.recv(65536)
        except OSError:
            chunk = b""
        received[s] += chunk
        if not chunk:
            closed[s] = time.monotonic() - started[s]
            poller.unregister(s)

answers, messages = {}, {}
for s in closed:
    head, _, body = received[s].partition(b"\r\n\r\n")
    key, message = "closed", ""
    if head:
        try:
            error = json.loads(body)["error"]
            key, message = head.split(b" ")[1].decode() + " " + error["code"], error["message"]
        except (ValueError, KeyError, IndexError):
            key = head.split(b" ")[1].decode() + " ?"
    answers[key] = answers.get(key, 0) + 1
    messages.setdefault(key, message)
print(json.dumps({
    "held": len(started) - len(closed), "answers": answers, "messages": messages,
    "slowest_close_seconds": round(max(closed.values(), default=0), 3),
}), flush=True)

end = time.monotonic() + hold
while time.monotonic() < end and not os.path.exists(release):
    time.sleep(0.05)
for s in started:
    s.close()
print("released", flush=True)
