"""How a run stops on SIGINT (Ctrl-C) and SIGTERM: quietly, cleanly, with the status a shell
reports for the signal (128 + its number: 130, 143; POSIX, Shell Command Language, 2.8.2
"Exit Status for Commands").

The signal becomes ``KeyboardInterrupt`` in the main thread, so every ``with`` and
``finally`` unwinds as for Ctrl-C: temporary outputs (``io.outputs.AtomicPath``) are
removed, worker pools and Spark are stopped. Worker processes leave the decision to their
parent (``worker_signals``).
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

STOPPED = {signal.SIGINT: (128 + signal.SIGINT, "interrupted"),
           signal.SIGTERM: (128 + signal.SIGTERM, "terminated")}
_received: list[int] = []  # the signal that stopped the run (the first one)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Stop the run (once): later signals are ignored while it unwinds, so cleaning up is
    not cut short."""
    _received.append(signum)
    for s in STOPPED:
        signal.signal(s, signal.SIG_IGN)
    raise KeyboardInterrupt


def handle_signals() -> None:
    """SIGINT and SIGTERM stop the run as Ctrl-C does (call in the main thread)."""
    _received.clear()
    for s in STOPPED:
        signal.signal(s, _on_signal)


@contextlib.contextmanager
def kept() -> Iterator[None]:
    """mqtool's SIGINT and SIGTERM handlers back after the block when a library replaced
    them (PySpark's SparkContext installs a SIGINT handler that calls into the JVM from
    inside the signal, which breaks the call the main thread was making)."""
    before = {s: signal.getsignal(s) for s in STOPPED}
    stopping = True
    try:
        yield
        stopping = bool(_received)
    finally:
        # a run the block saw stopped keeps ignoring signals while it unwinds, as
        # ``_on_signal`` arranged: a later one must not strike its cleaning up
        for s, h in before.items():
            if h is _on_signal:
                signal.signal(s, signal.SIG_IGN if stopping else h)


def ignore() -> None:
    """The run is over (its status decided): a signal from now on is ignored, so it cannot
    turn the status into a kill or a traceback while the interpreter shuts down."""
    for s in STOPPED:
        signal.signal(s, signal.SIG_IGN)


def stopped_by() -> tuple[int, str]:
    """The exit status and the word for the signal that stopped the run (SIGINT when the
    interrupt came another way: a ``KeyboardInterrupt`` raised by a library)."""
    sig = signal.Signals(_received[0]) if _received else signal.SIGINT
    return STOPPED[sig]


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM held back (not lost) while worker processes are started: a
    worker inherits the mask and takes its signals only once ``worker_signals`` has set
    what they do, so none can strike it halfway through starting."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOPPED))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def worker_signals() -> None:
    """For a worker process of a pool (its initializer, started under ``held``): Ctrl-C
    reaches the whole process group, but only the parent acts on it (it stops the pool);
    SIGTERM ends the worker at once, without a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(STOPPED))
