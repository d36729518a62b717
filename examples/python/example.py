#!/usr/bin/env python3
"""Fetch a URL through lulld and print its events until it ends.

    pip install ./clients/python        # the `lull` package, standard library only
    python3 examples/python/example.py https://example.org/file /tmp/file [--socket PATH]

Prints one JSON event per line (so other programs can read it), then the final job. Exit status
0 when the job succeeded, 1 when it did not, 3 when lulld cannot be reached. With
--drop-after N it closes its own connection after N events and resumes from the cursor, to
show that resuming neither misses nor repeats an event.
"""

import argparse
import json
import os
import sys

try:
    import lull
except ImportError:
    # Run from a checkout without `pip install ./clients/python`: the package's source is here.
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../clients/python/src"))
    import lull


def follow_job(client, job_id, cursor, drop_after):
    """The job's events until it ends. With drop_after, the connection is closed once, after
    that many of the job's events, and a new one resumes from the last seq seen."""
    seen = 0
    while True:
        stream = client.follow(
            after=cursor, on_disconnect=lambda c: print(json.dumps({"reconnecting_after": c}), flush=True))
        for event in stream:
            cursor = event["seq"]
            if event["job_id"] != job_id:
                continue
            yield event
            seen += 1
            if event["state"] in lull.TERMINAL_STATES:
                return
            if drop_after is not None and seen == drop_after:
                drop_after = None
                stream.close()  # closes the socket; the next loop reconnects with after=cursor
                print(json.dumps({"dropped_after_seq": cursor}), flush=True)
                break


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("destination")
    parser.add_argument("--socket", default=None, help="lulld's socket (default: as lullctl finds it)")
    parser.add_argument("--label", default=None)
    parser.add_argument("--idle-timeout", type=float, default=None, help="seconds without data before an attempt fails")
    parser.add_argument("--drop-after", type=int, default=None, help="close the event stream after N events, then resume")
    args = parser.parse_args()

    client = lull.Client(args.socket)
    try:
        cursor = client.status().get("last_event_seq") or 0
        spec = {"kind": "fetch", "url": args.url, "destination": os.path.abspath(args.destination)}
        if args.label:
            spec["label"] = args.label
        if args.idle_timeout:
            spec["timeouts"] = {"idle_seconds": args.idle_timeout}
        job = client.submit(spec)
        print(json.dumps({"submitted": job["id"]}), flush=True)
        for event in follow_job(client, job["id"], cursor, args.drop_after):
            print(json.dumps(event, sort_keys=True), flush=True)
        final = client.get(job["id"])
        print(json.dumps({"final": final}, sort_keys=True), flush=True)
        return 0 if final["state"] == "succeeded" else 1
    except lull.Unreachable as error:
        print(f"example: {error}", file=sys.stderr)
        return 3
    except lull.LullError as error:
        print(f"example: lulld refused: {error.message} (field {error.field})", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
