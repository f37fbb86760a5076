"""How a run stops on SIGINT (Ctrl-C) and SIGTERM: quietly, cleanly, with the status a shell
reports for the signal (128 + its number: 130, 143; POSIX, Shell Command Language, 2.8.2
"Exit Status for Commands").

The signal becomes ``KeyboardInterrupt`` in the main thread, so every ``with`` and
``finally`` unwinds as for Ctrl-C: temporary outputs (``io.outputs.AtomicPath``) are
removed, worker pools and Spark are stopped. Worker processes leave the decision to their
parent (``worker_signals``).
"""

from __future__ import annotations

import signal
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


def stopped_by() -> tuple[int, str]:
    """The exit status and the word for the signal that stopped the run (SIGINT when the
    interrupt came another way: a ``KeyboardInterrupt`` raised by a library)."""
    sig = signal.Signals(_received[0]) if _received else signal.SIGINT
    return STOPPED[sig]


def worker_signals() -> None:
    """For a worker process of a pool (its initializer): Ctrl-C reaches the whole process
    group, but only the parent acts on it (it stops the pool); SIGTERM ends the worker at
    once, without a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
