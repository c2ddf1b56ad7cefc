"""Machine instructions per call over stdio, mcpsync beside the design floor, counted by valgrind.

    python benchmarks/instructions.py [--calls N] [--repeat R] [--clients floor,mcpsync] [--modes sequential,batch]

Timings on a shared VM swing by a third from run to run; an instruction count
does not. Each client runs twice in a fresh process under ``valgrind
--tool=callgrind`` (the server is not counted): once connecting and warming up
only, once with N calls more; the difference over N is what one call costs the
client process, every thread included (its reader's work too). Each figure
is the median of R such pairs: a count varies less than a timing, but the
waits' polling under valgrind still moves it by a few per cent, now and
then by ten. The modes are
the benchmark's: ``sequential`` (one call after another, ``call``) and
``batch`` (100 in flight, ``batch``).

What a count leaves out: system calls' own time, waiting, the scheduler and
the GIL's hand-overs between the caller and the reader. A ratio of counts is
the CPU side of the story only; ``run.py`` measures the whole.
Needs valgrind (``apt-get install valgrind``); ~30 s per client, mode and repeat.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 900  # seconds for one valgrind run: a bound, not a target


def child(client, mode, calls):
    """In the counted process: connect, warm up, then ``calls`` calls (``calls`` 0: none)."""
    sys.path.insert(0, HERE)
    import peers

    if client == "floor":
        import floor

        peer = floor.FloorStdio(peers.STDIO)
    else:
        peer = peers.sync_peer(client, peers.STDIO)
    try:
        for n in range(20):
            peer.call("warm %d" % n)
        if mode == "sequential":
            for n in range(calls):
                peer.call("call %d" % n)
        else:
            texts = ["call %d" % n for n in range(100)]
            for _ in range(calls // 100):
                peer.batch(texts)
    finally:
        peer.close()


def counted(client, mode, calls):
    """Instructions of one fresh process (callgrind's total), the server not counted."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        client,
        mode,
        str(calls),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit("valgrind run failed (%s %s %d):\n%s" % (client, mode, calls, done.stderr[-2000:]))
    return int(found.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clients", default="floor,mcpsync")
    parser.add_argument("--modes", default="sequential,batch")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        client, mode, calls = args.child
        child(client, mode, int(calls))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    import mcpsync

    print(
        "mcpsync from %s; %d calls; instructions per call (client process, all threads)"
        % (os.path.dirname(mcpsync.__file__), args.calls)
    )
    for mode in args.modes.split(","):
        per_call = {}
        for client in args.clients.split(","):
            pairs = [
                (counted(client, mode, args.calls) - counted(client, mode, 0)) / args.calls for _ in range(args.repeat)
            ]
            per_call[client] = statistics.median(pairs)
            print("%-10s %-8s %9.0f" % (mode, client, per_call[client]), flush=True)
        if "floor" in per_call and "mcpsync" in per_call:
            print("%-10s mcpsync/floor %.2f" % (mode, per_call["mcpsync"] / per_call["floor"]))


if __name__ == "__main__":
    main()
