"""``io.signals.kept``: the handlers a library replaced are put back after the block, but
a run stopped inside it keeps ignoring further signals while it unwinds."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from mqtool.io import signals


@pytest.fixture
def handlers() -> Iterator[None]:
    before = {s: signal.getsignal(s) for s in signals.STOPPED}
    yield
    for s, h in before.items():
        signal.signal(s, h)


def _handled() -> None:
    """Give the handler its chance (Python runs it in the main thread between bytecodes,
    whichever thread the kernel gave the signal to)."""
    for _ in range(2000):
        time.sleep(0.005)
    pytest.fail("the signal was not handled")


def _library_replaces_sigint() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as PySpark's SparkContext does


def test_after_a_quiet_block_mqtool_handles_signals_again(handlers: None) -> None:
    signals.handle_signals()
    with signals.kept():
        _library_replaces_sigint()
    assert signal.getsignal(signal.SIGINT) is signals._on_signal
    assert signal.getsignal(signal.SIGTERM) is signals._on_signal


def test_a_run_stopped_inside_the_block_keeps_ignoring_signals(handlers: None) -> None:
    signals.handle_signals()
    with pytest.raises(KeyboardInterrupt), signals.kept():
        os.kill(os.getpid(), signal.SIGTERM)  # mqtool's handler: the run stops
        _handled()
    assert signals.stopped_by() == (143, "terminated")
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN


def test_an_interrupt_raised_by_the_library_also_leaves_signals_ignored(handlers: None) -> None:
    signals.handle_signals()
    with pytest.raises(KeyboardInterrupt), signals.kept():
        _library_replaces_sigint()
        os.kill(os.getpid(), signal.SIGINT)  # the library's handler raises, mqtool's never ran
        _handled()
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    os.kill(os.getpid(), signal.SIGINT)  # ignored: no KeyboardInterrupt while unwinding
    time.sleep(0.05)
