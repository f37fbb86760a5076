"""mqtool dump (document style, squeezing on) vs ``xxd -g4`` on the same random bytes.

    python bench/dump.py [MB]        # default 100

Prints both times and the throughput ratio (xxd time / mqtool time; > 1 means mqtool is
faster). Needs Debian's xxd (apt-get install xxd). Not a test: run it by hand.
"""

from __future__ import annotations

import shutil
import sys

from _common import OUT, best_of, mqtool_cmd, random_file


def main() -> None:
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    if not shutil.which("xxd"):
        sys.exit("xxd is not installed: apt-get install xxd")
    data = random_file(OUT / f"random-{mb}MB.bin", mb * 1_000_000)
    t_xxd = best_of(["xxd", "-g4", str(data)])
    t_mq = best_of([*mqtool_cmd(), "dump", str(data)])
    print(f"{mb} MB random bytes")
    print(f"  xxd -g4              {t_xxd:7.2f} s  {mb / t_xxd:7.1f} MB/s")
    print(f"  mqtool dump          {t_mq:7.2f} s  {mb / t_mq:7.1f} MB/s")
    print(f"  ratio (mqtool/xxd throughput) {t_xxd / t_mq:.2f}x  (target >= 1.0)")


if __name__ == "__main__":
    main()
