"""What ``spark-extract``'s driver does with many input objects: list them and cut them into
byte ranges (nothing is read), against moto's S3 server on 127.0.0.1.

    python bench/spark_planning.py [N]     # default 2000 objects of 4 KB

The server runs in this process; each measurement runs in a fresh process that imports
mqtool, takes its resident set size, plans ``spark-extract s3://bucket/prefix/`` (the
driver's listing and ranges: ``spark.job.listing`` and ``spark.job.cut``, and the task
closure that carries the ranges, pickled), and reports the planning time and its peak RSS
above the imports -- for N/8, N/4, N/2 and N objects, so the growth shows: planning time
O(objects), the driver's memory flat (a few hundred bytes per object). No JVM is started:
planning happens before it. Prints ``uptime`` first and last. Not a test.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def plan(prefix: str) -> None:
    """In a fresh process: the driver's planning of ``prefix``; one JSON line."""
    import pickle

    from mqtool.spark.arrow_writer import WriteOptions
    from mqtool.spark.job import cut, listing

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    files = listing([prefix])
    t_list = time.perf_counter() - t
    ranges = cut(files, 64 << 20)
    closure = len(pickle.dumps(WriteOptions("s3://bucket/out", ranges=ranges)))
    took = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"objects": len(files), "ranges": len(ranges), "listing_s": t_list,
                      "planning_s": took, "rss_base_kb": base, "rss_peak_kb": peak,
                      "closure_bytes": closure}))


def main() -> None:
    if sys.argv[1:2] == ["plan"]:
        plan(sys.argv[2])
        return
    import logging
    import socket

    from moto.server import ThreadedMotoServer

    print("load at the start:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    env = {**os.environ, "AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "bench",
           "AWS_SECRET_ACCESS_KEY": "bench", "AWS_REGION": "us-east-1",
           "AWS_EC2_METADATA_DISABLED": "true", "PYTHONPATH": str(ROOT)}
    try:
        counts = sorted({max(1, n // 8), max(1, n // 4), max(1, n // 2), n})
        import boto3

        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id="bench", aws_secret_access_key="bench").create_bucket(Bucket="bucket")
        for k in counts:
            put_objects_into(endpoint, k)
        print(f"{'objects':>8} {'ranges':>7} {'listing s':>10} {'planning s':>11} {'per object ms':>14} "
              f"{'peak RSS above imports MB':>26} {'task closure KB':>16}")
        for k in counts:
            r = subprocess.run([sys.executable, __file__, "plan", f"s3://bucket/logs/n{k}/"],
                               capture_output=True, text=True, env=env, check=True)
            d = json.loads(r.stdout.splitlines()[-1])
            print(f"{d['objects']:>8} {d['ranges']:>7} {d['listing_s']:>10.3f} {d['planning_s']:>11.3f} "
                  f"{1000 * d['planning_s'] / d['objects']:>14.3f} "
                  f"{(d['rss_peak_kb'] - d['rss_base_kb']) / 1024:>26.1f} {d['closure_bytes'] / 1024:>16.1f}")
    finally:
        server.stop()
    print("load at the end:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


def put_objects_into(endpoint: str, n: int) -> None:
    import boto3

    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id="bench", aws_secret_access_key="bench")
    body = b"\x00" * 4096
    for i in range(n):
        s3.put_object(Bucket="bucket", Key=f"logs/n{n}/CSQ{i:06d}.bin", Body=body)


if __name__ == "__main__":
    main()
