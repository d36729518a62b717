"""The power-cut guest's agent, started by boot.sh at every boot.

1. Reports what the last cut left, before lulld runs again: the store's integrity and jobs, and
   every file in /srv/dl with its SHA-256 ("report {...}").
2. Starts lulld under systemd ("up SECONDS" once it is ready).
3. lull.mode=cut: submits a mixed workload over the socket until the host cuts the power. Each
   submission is announced before it is sent ("intent ...") and acknowledged once the 201 is in
   ("ack ID LABEL"); the host records both the moment they arrive.
   lull.mode=final: waits for the queue to finish, stops lulld cleanly and reports the end
   state ("final {...}").
Everything goes to the virtio port lull.agent, one line each; the host checks it.
"""

import hashlib
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import time

PORT = "/dev/virtio-ports/lull.agent"
SOCKET = "/run/lull/lull.sock"
STORE = "/var/lib/lull/lull.sqlite"
DEST = "/srv/dl"
SLOTS = 12
TERMINAL = {"succeeded", "failed", "cancelled", "expired"}


def say(line):
    fd = os.open(PORT, os.O_WRONLY)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def kernel_args():
    args = {}
    for word in open("/proc/cmdline").read().split():
        if word.startswith("lull.") and "=" in word:
            key, value = word[5:].split("=", 1)
            args[key] = value
    return args


def store_facts():
    """Run as the lull user (so SQLite's -wal and -shm stay lull's): integrity and jobs."""
    import sqlite3

    if not os.path.exists(STORE):
        return {"integrity": "none", "jobs": []}
    db = sqlite3.connect(STORE, timeout=30)
    integrity = "; ".join(row[0] for row in db.execute("PRAGMA integrity_check"))
    jobs = [list(row) for row in db.execute("SELECT id, label, kind, state FROM jobs ORDER BY id")]
    seq = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
    db.close()
    return {"integrity": integrity, "jobs": jobs, "seq": seq[0] if seq else 0}


def store_as_lull():
    out = subprocess.run(
        ["runuser", "-u", "lull", "--", "python3", __file__, "store"], capture_output=True, text=True, timeout=300
    )
    if out.returncode != 0:
        return {"integrity": "check failed: " + out.stderr.strip()[-300:], "jobs": []}
    return json.loads(out.stdout)


def files():
    found, staging = {}, []
    for name in sorted(os.listdir(DEST)):
        if name.startswith("."):
            staging.append(name)
            continue
        digest = hashlib.sha256()
        with open(os.path.join(DEST, name), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        found[name] = digest.hexdigest()
    return found, staging


class UnixConnection(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(120)
        self.sock.connect(SOCKET)


def api(method, path, body=None):
    connection = UnixConnection("lull")
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        headers["Accept"] = "application/json"
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def all_jobs():
    jobs, after = [], 0
    for _ in range(10000):
        status, page = api("GET", "/v1/jobs?limit=1000&after=%d" % after)
        if status != 200:
            raise RuntimeError("GET /v1/jobs: %d %s" % (status, page))
        jobs += page["jobs"]
        if "next_after" not in page:
            return jobs
        after = page["next_after"]
    raise RuntimeError("too many pages")


def start_lulld():
    began = time.monotonic()
    out = subprocess.run(
        ["systemctl", "start", "lulld.socket", "lulld.service"], capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        journal = subprocess.run(
            ["journalctl", "-u", "lulld", "--no-pager", "-n", "30", "-o", "cat"], capture_output=True, text=True
        ).stdout
        say("error lulld did not start: %s %s" % (out.stderr.strip(), json.dumps(journal)))
        sys.exit(1)
    say("up %.1f" % (time.monotonic() - began))


class Follower:
    """Reads the event log as a follower would and says how far it got (`seen N`), and the
    first event numbered after the store's last one found before lulld started (`fresh N`):
    a number given again after a cut would be at most one a follower saw."""

    def __init__(self, stored):
        self.stored, self.seen, self.fresh = stored, 0, None

    def read(self):
        if self.fresh is None:
            status, page = api("GET", "/v1/events?after=%d&limit=1" % self.stored)
            if status == 200 and page.get("events"):
                self.fresh = page["events"][0]["seq"]
                say("fresh %d" % self.fresh)
        for _ in range(20):
            status, page = api("GET", "/v1/events?after=%d&limit=1000" % self.seen)
            if status != 200 or not page.get("events"):
                return
            self.seen = page["events"][-1]["seq"]
            say("seen %d" % self.seen)


def drive(boot, seed, follower):
    rng = random.Random(seed)
    manifest = json.load(open("/payload/manifest.json"))
    served = sorted(manifest["files"])
    sources = sorted(manifest["sources"])
    n = 0
    # Bounded: the host cuts long before this ends.
    deadline = time.monotonic() + 1800
    while time.monotonic() < deadline:
        unfinished = [j for j in all_jobs() if j["state"] not in TERMINAL]
        busy = {j.get("destination") for j in unfinished}
        # Keep the queue short enough to finish in the final boot.
        if len(unfinished) > 16:
            time.sleep(0.5)
            continue
        for _ in range(rng.randint(2, 5)):
            n += 1
            label = "pc-%d-%d" % (boot, n)
            roll = rng.random()
            if roll < 0.5:
                free = [s for s in range(SLOTS) if "%s/d%02d.bin" % (DEST, s) not in busy]
                if not free:
                    continue
                slot = rng.choice(free)
                dest = "%s/d%02d.bin" % (DEST, slot)
                name = rng.choice(served)
                spec = {"kind": "fetch", "url": "http://127.0.0.1:8080/files/" + name, "destination": dest}
                if rng.random() < 0.5:
                    spec["sha256"] = manifest["files"][name]
                busy.add(dest)
                intent = "fetch d%02d.bin %s" % (slot, name)
            elif roll < 0.75:
                spec = {
                    "kind": "push",
                    "url": "http://127.0.0.1:8080/push/" + label,
                    "content_type": "application/json",
                    "body": json.dumps({"label": label}),
                }
                intent = "push - -"
            else:
                name = rng.choice(sources)
                spec = {"kind": "upload", "url": "http://127.0.0.1:8080/up/" + label, "source": "/payload/sources/" + name}
                intent = "upload - %s" % name
            spec["label"] = label
            say("intent %s %s" % (label, intent))
            try:
                status, answer = api("POST", "/v1/jobs", spec)
            except OSError as error:
                say("refused %s %s" % (label, error))
                continue
            if status == 201:
                say("ack %d %s" % (answer["id"], label))
            else:
                say("refused %s %d %s" % (label, status, json.dumps(answer)))
        time.sleep(rng.uniform(0.05, 1.0))
        follower.read()
    say("idle")


def finish(follower):
    began = time.monotonic()
    jobs = []
    while time.monotonic() - began < 1200:
        follower.read()
        jobs = all_jobs()
        if all(j["state"] in TERMINAL for j in jobs):
            break
        time.sleep(0.5)
    ended = [[j["id"], j.get("label"), j["kind"], j["state"], j.get("error"), j.get("attempts", 0)] for j in jobs]
    out = subprocess.run(["systemctl", "stop", "lulld.service", "lulld.socket"], capture_output=True, text=True)
    found, staging = files()
    store = store_as_lull()
    say(
        "final "
        + json.dumps(
            {
                "seconds": round(time.monotonic() - began, 1),
                "jobs": ended,
                "stop": out.returncode,
                "integrity": store["integrity"],
                "files": found,
                "staging": staging,
            }
        )
    )


def main():
    if sys.argv[1:] == ["store"]:
        print(json.dumps(store_facts()))
        return
    args = kernel_args()
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", 8080), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    store = store_as_lull()
    found, staging = files()
    say("report " + json.dumps({"integrity": store["integrity"], "jobs": store["jobs"], "files": found, "staging": staging}))
    start_lulld()
    follower = Follower(store.get("seq", 0))
    if args.get("mode") == "final":
        finish(follower)
    else:
        drive(int(args.get("boot", "0")), int(args.get("seed", "0")), follower)


main()
