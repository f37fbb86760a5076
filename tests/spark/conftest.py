"""The Spark tests' servers: moto's S3 server and a standalone cluster, each started once.

The shared Spark session (``spark``) is in tests/conftest.py (the command-line contract
tests use it too); under ``CI=true`` a Spark test that would be skipped fails there.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

# --------------------------------------------------------------------------- an S3 server


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def s3_server() -> Iterator[dict[str, str]]:
    """moto's S3 server on 127.0.0.1 (``mqtool[test]``); yields the AWS environment that
    points at it. A bucket ``logs`` exists."""
    server_mod = pytest.importorskip("moto.server")
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


def s3_put(key: str, data: bytes) -> str:
    """Upload to the test server's bucket ``logs`` (one PUT); the object's URI."""
    import boto3

    client = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1",
                          aws_access_key_id="testing", aws_secret_access_key="testing")
    client.put_object(Bucket="logs", Key=key, Body=data)
    return f"s3://logs/{key}"


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
