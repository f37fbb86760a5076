"""The Spark tests' servers: moto's S3 server and a standalone cluster, each started once.

The shared Spark session (``spark``) is in tests/conftest.py (the command-line contract
tests use it too); under ``CI=true`` a Spark test that would be skipped fails there.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# --------------------------------------------------------------------------- an S3 server

# The test server's credentials, in the environment before any JVM starts: a Spark session
# started by an earlier test (the shared one) hands its environment to its Python workers,
# which read S3 with it. (The endpoint reaches executors with the job: driver_settings.)
DUMMY_AWS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
             "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
for _k, _v in DUMMY_AWS.items():
    os.environ.setdefault(_k, _v)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def s3_server() -> Iterator[dict[str, str]]:
    """moto's S3 server on 127.0.0.1 (``mqtool[test]``); yields the AWS environment that
    points at it. A bucket ``logs`` exists."""
    import logging

    server_mod = pytest.importorskip("moto.server")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    port = free_port()
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
           "AWS_EC2_METADATA_DISABLED": "true"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    import pyarrow.fs as pafs

    fs = pafs.S3FileSystem(endpoint_override=f"127.0.0.1:{port}", scheme="http", region="us-east-1",
                           access_key="testing", secret_key="testing", allow_bucket_creation=True)
    fs.create_dir("logs")
    yield env
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    server.stop()


def _client() -> Any:
    import boto3

    return boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def s3_put(key: str, data: bytes) -> str:
    """Upload to the test server's bucket ``logs`` (one PUT); the object's URI."""
    _client().put_object(Bucket="logs", Key=key, Body=data)
    return f"s3://logs/{key}"


def s3_keys(prefix: str) -> list[str]:
    """Every object under ``prefix`` in the bucket ``logs`` (boto3: another client than
    mqtool's pyarrow), relative to it, sorted; not the empty ``dir/`` markers pyarrow leaves
    where it deleted a file (readers take them for directories)."""
    out: list[str] = []
    pages = _client().get_paginator("list_objects_v2").paginate(Bucket="logs", Prefix=prefix)
    for page in pages:
        out += [o["Key"][len(prefix):].lstrip("/") for o in page.get("Contents", [])
                if not (o["Key"].endswith("/") and o["Size"] == 0)]
    return sorted(out)


def s3_get(key: str) -> bytes:
    return bytes(_client().get_object(Bucket="logs", Key=key)["Body"].read())


def s3_download(prefix: str, to: Path) -> Path:
    """Every object under ``prefix`` into the folder ``to`` (to read it with pyarrow)."""
    for key in s3_keys(prefix):
        if key.endswith("/"):
            continue
        target = to / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(s3_get(f"{prefix.rstrip('/')}/{key}"))
    return to


# --------------------------------------------------------------------------- a standalone cluster


def readme_cluster_block() -> str:
    """The cluster how-to of docs/csq1logp.md (the ```sh block after '### A Spark standalone
    cluster')."""
    from tests.helpers import ROOT

    text = (ROOT / "docs" / "csq1logp.md").read_text(encoding="utf-8")
    at = text.index("### A Spark standalone cluster")
    start = text.index("```sh\n", at) + len("```sh\n")
    return text[start:text.index("```", start)]


@pytest.fixture(scope="session")
def standalone_cluster(tmp_path_factory: pytest.TempPathFactory,
                       s3_server: dict[str, str]) -> Iterator[dict[str, str]]:
    """A master and one worker on 127.0.0.1, started by the README's how-to as written
    (its ports replaced by free ones); yields ``master`` (the URL) and the README's
    extract command line. Stopped at the end of the session. The worker (so its executors)
    has the S3 server's AWS environment, as a real cluster's nodes would have theirs."""
    import signal
    import subprocess
    import time

    if importlib_spec("pyspark") is None:
        pytest.skip("pyspark is not installed (pip install 'mqtool[spark]')")
    block = readme_cluster_block()
    for old in ("7077", "8080", "8081"):
        block = block.replace(old, str(free_port()))
    lines = block.splitlines()
    cut = next(i for i, ln in enumerate(lines) if ln.startswith("mqtool "))
    setup, command = "\n".join(lines[:cut]), lines[cut]
    work = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(work)}
    out = subprocess.run(["bash", "-c", setup + '\necho "$SPARK_MASTER $MASTER_PID $WORKER_PID"'],
                         cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    master, *pids = out.stdout.split()[-3:]
    try:
        yield {"master": master, "command": command, "dir": str(work)}
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGTERM)
        time.sleep(1)


def importlib_spec(name: str) -> object:
    import importlib.util

    return importlib.util.find_spec(name)
