"""The power-cut guest's loopback HTTP server, on 127.0.0.1:8080.

GET /files/NAME serves the payload's files with an ETag and byte ranges (so lulld resumes
fetches from its checkpoints); POST/PUT /push/LABEL and /up/LABEL take pushes and uploads. Every
push or upload received is reported, before it is answered, on the virtio port lull.server:
the host keeps that record across cuts (this server's own memory and disk do not survive them).
"""

import hashlib
import http.server
import os
import random
import re
import threading

FILES = "/payload/files"
PORT = "/dev/virtio-ports/lull.server"
report_lock = threading.Lock()
report = os.open(PORT, os.O_WRONLY)
refused_once = set()


def say(line):
    with report_lock:
        os.write(report, (line + "\n").encode())


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        match = re.fullmatch(r"/files/([a-z0-9.]+)", self.path)
        path = os.path.join(FILES, match.group(1)) if match else None
        if path is None or not os.path.isfile(path):
            return self.answer(404)
        size = os.path.getsize(path)
        etag = '"%s-%d"' % (match.group(1), size)
        start, end = 0, size - 1
        wanted = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        ranged = wanted is not None and (if_range is None or if_range == etag)
        if ranged:
            m = re.fullmatch(r"bytes=(\d+)-(\d*)", wanted.strip())
            if not m or int(m.group(1)) >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        self.send_response(206 if ranged else 200)
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(end - start + 1))
        if ranged:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        with open(path, "rb") as f:
            f.seek(start)
            left = end - start + 1
            while left > 0:
                chunk = f.read(min(left, 1 << 20))
                if not chunk:
                    break
                self.wfile.write(chunk)
                left -= len(chunk)

    def receive(self):
        match = re.fullmatch(r"/(push|up)/([A-Za-z0-9-]+)", self.path)
        length = int(self.headers.get("Content-Length") or 0)
        digest = hashlib.sha256()
        left = length
        while left > 0:
            chunk = self.rfile.read(min(left, 1 << 20))
            if not chunk:
                return
            digest.update(chunk)
            left -= len(chunk)
        if not match:
            return self.answer(404)
        kind, label = match.groups()
        if kind == "push":
            # A third of the pushes are refused once, so their retries must carry the same key.
            if label not in refused_once and random.random() < 1 / 3:
                refused_once.add(label)
                say("push %s %s refused" % (label, self.headers.get("Idempotency-Key", "none")))
                return self.answer(503)
            say("push %s %s ok" % (label, self.headers.get("Idempotency-Key", "none")))
        else:
            say("upload %s %s %d" % (label, digest.hexdigest(), length))
        self.answer(200)

    do_POST = receive
    do_PUT = receive

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


http.server.ThreadingHTTPServer.allow_reuse_address = True
http.server.ThreadingHTTPServer(("127.0.0.1", 8080), Handler).serve_forever()
