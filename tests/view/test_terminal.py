"""``mqtool view`` in a real terminal (tmux): start, send keys, read the pane, quit, exit 0.
And the command's errors: without Textual it says how to install it (exit 4)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT, mq
from tests.view.conftest import URB_DATA

TMUX = shutil.which("tmux")


def _wait_for(tmux: list[str], text: str, timeout: float = 30.0) -> str:
    end = time.monotonic() + timeout
    pane = ""
    while time.monotonic() < end:
        pane = subprocess.run([*tmux, "capture-pane", "-p", "-t", "view"], capture_output=True,
                              text=True).stdout
        if text in pane:
            return pane
        time.sleep(0.2)
    raise AssertionError(f"{text!r} did not appear; the pane shows:\n{pane}")


def _tmux_server_starts(tmp_path: Path) -> str:
    """'' when tmux can start a server here, else what it said (some sandboxes refuse it)."""
    probe = [str(TMUX), "-S", str(tmp_path / "probe.sock")]
    r = subprocess.run([*probe, "new-session", "-d", "-s", "probe", "sleep 1"],
                       capture_output=True, text=True, timeout=30)
    subprocess.run([*probe, "kill-server"], capture_output=True, timeout=30)
    return "" if r.returncode == 0 else (r.stderr.strip() or f"exit status {r.returncode}")


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_view_in_tmux_start_keys_capture_quit(tmp_path: Path) -> None:
    refused = _tmux_server_starts(tmp_path)
    if refused:
        pytest.skip(f"tmux cannot start its server on this machine: {refused}")
    tmux = [str(TMUX), "-S", str(tmp_path / "tmux.sock")]  # a server of our own
    status = tmp_path / "status"
    env = f"PYTHONPATH={ROOT} TERM=xterm-256color"
    # the app starts once its terminal has the size; the shell's COLUMNS/LINES (set while the
    # pane was still 80x24) would override the terminal's size, so they go
    cmd = (f"while [ \"$(stty size)\" != '45 160' ]; do sleep 0.05; done; unset COLUMNS LINES; "
           f"cd {ROOT} && {env} {sys.executable} -m mqtool view {URB_DATA.relative_to(ROOT)}; "
           f"echo $? > {status}")
    subprocess.run([*tmux, "new-session", "-d", "-s", "view", "-x", "160", "-y", "45", cmd, ";",
                    "set-option", "-g", "window-size", "manual", ";",
                    "resize-window", "-t", "view", "-x", "160", "-y", "45"], check=True)
    try:
        pane = _wait_for(tmux, "URBH element at offset X'0000'")
        assert "0000 E4D9C2C8 00000040 F0F10001 00000250 *URBH... 01.....&*" in pane
        subprocess.run([*tmux, "send-keys", "-t", "view", "/"], check=True)
        _wait_for(tmux, "search (path, value, meaning, X'hex')")  # the prompt has the keys now
        subprocess.run([*tmux, "send-keys", "-t", "view", "urbrisn", "Enter"], check=True)
        pane = _wait_for(tmux, "urbr[0].urbrisn X'00C0'..X'00C3' (4 bytes)")
        assert "urbrisn = 2" in pane
        subprocess.run([*tmux, "send-keys", "-t", "view", "q"], check=True)
        end = time.monotonic() + 30
        while not status.exists() and time.monotonic() < end:
            time.sleep(0.2)
        assert status.read_text().strip() == "0"
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def test_without_textual_it_says_how_to_install_it_and_exits_4() -> None:
    code = ("import sys; sys.modules['textual'] = None; from mqtool.cli import run; "
            f"sys.exit(run(['view', {str(URB_DATA)!r}]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 4
    assert out.stderr == "mqtool: view needs Textual: pip install 'mqtool[view]'\n"


def test_a_missing_file_is_a_usage_error_before_the_screen_opens() -> None:
    result = mq("view", "/nonexistent/input.bin")
    assert result.status == 1
    assert result.stderr == "mqtool: /nonexistent/input.bin: no such file\n"


def test_an_unknown_format_is_a_usage_error() -> None:
    result = mq("view", "--decode-as", "nosuch", URB_DATA)
    assert result.status == 1 and "unknown format 'nosuch'" in result.stderr
