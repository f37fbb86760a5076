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


@pytest.fixture(scope="session")
def standalone_cluster(tmp_path_factory: pytest.TempPathFactory,
                       s3_server: dict[str, str]) -> Iterator[dict[str, Any]]:
    """A master and two workers of one core each on 127.0.0.1, started by the docs' how-to
    as written (its ports replaced by free ones); yields ``master`` (the URL), the how-to's
    ``commands`` (its ``mqtool`` lines) and the work folder ``dir`` (each executor's log in
    ``<app>/<executor>/stderr`` under the workers' ``SPARK_WORKER_DIR``). Stopped at the
    end of the session. The workers (so their executors) have the S3 server's AWS
    environment, as a real cluster's nodes would have theirs."""
    import signal
    import subprocess
    import time

    if importlib_spec("pyspark") is None:
        pytest.skip("pyspark is not installed (pip install 'mqtool[spark]')")
    block = docs_block("### A Spark standalone cluster")
    for old in ("7077", "8080", "8081", "8082"):
        block = block.replace(old, str(free_port()))
    lines = block.splitlines()
    commands = [ln for ln in lines if ln.startswith("mqtool ")]
    cut = lines.index(commands[0])
    setup = "\n".join(lines[:cut])
    stop = lines[cut + len(commands):]
    assert len(stop) == 1 and stop[0].startswith("kill "), stop
    work = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(work / "work")}
    pids = stop[0].removeprefix("kill ")
    out = subprocess.run(["bash", "-c", setup + f'\necho "$SPARK_MASTER" {pids}'],
                         cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    master, *started = out.stdout.split()[-4:]
    try:
        yield {"master": master, "commands": commands, "dir": str(work)}
    finally:
        for pid in started:
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGTERM)
        time.sleep(1)


def docs_block(heading: str) -> str:
    """The first ```sh block after ``heading`` in docs/csq1logp.md."""
    from tests.helpers import ROOT

    text = (ROOT / "docs" / "csq1logp.md").read_text(encoding="utf-8")
    at = text.index(heading)
    start = text.index("```sh\n", at) + len("```sh\n")
    return text[start:text.index("```", start)]


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory: pytest.TempPathFactory,
                   s3_server: dict[str, str]) -> Iterator[dict[str, Any]]:
    """A Spark Connect server from the pyspark wheel on 127.0.0.1, started by the docs'
    procedure as written (its port replaced by a free one; its log and pid files in a
    temporary folder); yields ``remote`` (the sc:// URL) and the procedure's ``commands``
    (its ``mqtool`` lines). Stopped by the procedure's last line at the end of the session.
    The server's Python workers are this interpreter, with the S3 server's environment."""
    import subprocess
    import sys

    if importlib_spec("pyspark") is None:
        pytest.skip("pyspark is not installed (pip install 'mqtool[spark]')")
    block = docs_block("### Spark Connect and Databricks Connect").replace("15002", str(free_port()))
    lines = block.splitlines()
    commands = [ln for ln in lines if ln.startswith("mqtool ")]
    cut = lines.index(commands[0])
    setup = "\n".join(lines[:cut])
    # the stop line runs in a shell of its own: it needs the procedure's SPARK_HOME too
    # (without it the server outlived the session and teardown waited 120 s for its port)
    home = [ln for ln in lines[:cut] if ln.startswith("SPARK_HOME=")]
    stop = "\n".join(home + lines[cut + len(commands):])
    work = tmp_path_factory.mktemp("connect")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(work),
           "SPARK_PID_DIR": str(work), "PYSPARK_PYTHON": sys.executable}
    out = subprocess.run(["bash", "-c", f"timeout 300 bash -c {_quote(setup)}"], cwd=work,
                         env=env, capture_output=True, text=True, timeout=330)
    remote = commands[0].split("--remote ", 1)[1].split()[0]
    try:
        assert out.returncode == 0, out.stderr + "".join(p.read_text() for p in work.glob("*.out"))
        yield {"remote": remote, "commands": commands, "dir": str(work)}
    finally:
        done = subprocess.run(["bash", "-c", stop], cwd=work, env=env, capture_output=True,
                              text=True, timeout=120)
        closed = _wait_closed(remote, 120)  # the JVM has gone, not only been told to
        assert done.returncode == 0 and closed, f"Spark Connect server not stopped: {done.stderr}"


def _wait_closed(remote: str, seconds: float) -> bool:
    import socket
    import time

    host, port = remote.removeprefix("sc://").rstrip("/").rsplit(":", 1)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                pass
        except OSError:
            return True
        time.sleep(1)
    return False


PYSPARK_CLIENT = "pyspark-client==4.2.0"  # mqtool[spark-connect]'s client, pinned for the tests


@pytest.fixture(scope="session")
def pyspark_client() -> str:
    """A folder holding the ``pyspark-client`` package alone (the Spark Connect client that
    ``mqtool[spark-connect]`` installs: no JVM, no Spark jars), for ``PYTHONPATH``: installed
    with pip into a cache folder on first use (``$XDG_CACHE_HOME/mqtool-tests``, else
    ``~/.cache/mqtool-tests``); its other requirements are this environment's."""
    import subprocess
    import sys

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mqtool-tests"
    target = base / PYSPARK_CLIENT.replace("==", "-")
    if not (target / "pyspark" / "sql" / "connect").is_dir():
        work = target.with_name(target.name + f".{os.getpid()}.tmp")
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                               "--target", str(work), PYSPARK_CLIENT],
                              capture_output=True, text=True, timeout=600)
        if done.returncode:
            pytest.skip(f"pip install {PYSPARK_CLIENT} failed: {done.stderr.strip()[-300:]}")
        work.rename(target)
    return str(target)


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def importlib_spec(name: str) -> object:
    import importlib.util

    return importlib.util.find_spec(name)
