"""How many Python frames and calls one ``tools/call`` costs over stdio: mcpsync beside the design floor.

    python benchmarks/frames.py [--calls N] [--stacks]

Counts, with a profile hook (``sys.setprofile``, ``threading.setprofile``) on
every thread, over N sequential ``echo`` calls after a warm-up:

depth out   Python frames on the caller's stack when the request is written:
            from the client's method (``Client.call_tool``; the floor's
            ``request``) down to the function that calls the pipe's ``write``.
depth in    Python frames on the reader thread's stack when the answer
            settles its future (``concurrent.futures.Future.set_result``;
            mcpsync's ``RequestFuture.set_result``, which settles a request
            without it): from the thread's target (below ``Thread.run``) down
            to that ``set_result`` itself; the reader's read happens in the
            lowest of them or in a generator it resumes.
calls out   Python calls (generator resumptions and the standard library's
            included) per call on the caller's thread: sending and waiting.
calls in    the same on the reader thread, per answer: reading to settling.

``--stacks`` prints the two stacks. The counts are exact, not timed: the
profile hook slows everything down, so nothing here is a speed.
"""

import argparse
import concurrent.futures
import os
import sys
import threading
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import peers

from mcpsync._core.pending import RequestFuture

SET_RESULT = (concurrent.futures.Future.set_result.__code__, RequestFuture.set_result.__code__)
WARMUP = 50


class Counter:
    """The profile hook: Python calls per thread, and the two stacks."""

    def __init__(self, caller_code):
        self.caller_code = caller_code  # the code of the client method a call starts in
        self.calls = {}  # thread id -> Python calls
        self.by_name = {}  # (thread id, function) -> Python calls
        self.out_stack = self.in_stack = None
        self.reader = None
        self.active = False  # set around the counted calls (the hook is on every thread from the start)

    def hook(self, frame, event, arg):
        if not self.active:
            return
        if event == "call":
            ident = threading.get_ident()
            self.calls[ident] = self.calls.get(ident, 0) + 1
            key = (ident, "%s (%s)" % (frame.f_code.co_qualname, os.path.basename(frame.f_code.co_filename)))
            self.by_name[key] = self.by_name.get(key, 0) + 1
            if frame.f_code in SET_RESULT and self.in_stack is None and ident != MAIN:
                self.in_stack = traceback.extract_stack(frame)
                self.reader = ident
        elif event == "c_call" and self.out_stack is None and getattr(arg, "__name__", "") == "write":
            if threading.get_ident() == MAIN and self._from_caller(frame):
                self.out_stack = traceback.extract_stack(frame)

    def _from_caller(self, frame):
        while frame is not None:
            if frame.f_code is self.caller_code:
                return True
            frame = frame.f_back
        return False


MAIN = threading.get_ident()


def below(stack, name, filename_end):
    """The frames of `stack` after the first one named `name` in a file ending `filename_end`."""
    for index, entry in enumerate(stack):
        if entry.name == name and entry.filename.endswith(filename_end):
            return stack[index + 1 :]
    raise RuntimeError("no %s in the stack" % name)


def from_method(stack, code):
    """The frames of `stack` from the one running `code` on."""
    for index, entry in enumerate(stack):
        if entry.name == code.co_name and entry.filename == code.co_filename and entry.lineno >= code.co_firstlineno:
            return stack[index:]
    raise RuntimeError("no %s in the stack" % code.co_name)


def measure(client, calls):
    """{"depth out", "depth in", "calls out", "calls in"} of one client, and its two stacks."""
    counter = Counter(None)
    # On every thread the client starts (its reader among them), before it starts them.
    threading.setprofile(counter.hook)
    if client == "mcpsync":
        import mcpsync

        peer = mcpsync.connect(list(peers.STDIO_SERVER), timeout=peers.TIMEOUT)

        def one(text):
            peer.call_tool("echo", {"text": text}, timeout=peers.TIMEOUT)

        code = type(peer).call_tool.__code__
    else:
        peer = peers.sync_peer(client, peers.STDIO)

        def one(text):
            peer.request("tools/call", peers.echo_params(text))

        code = type(peer).request.__code__
    counter.caller_code = code
    try:
        for i in range(WARMUP):
            one("w%d" % i)
        sys.setprofile(counter.hook)
        counter.active = True
        for i in range(calls):
            one("s%d" % i)
        counter.active = False
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        peer.close()
    reader_calls = counter.calls.get(counter.reader, 0)
    stack_out = from_method(counter.out_stack, code)
    stack_in = below(counter.in_stack, "run", "threading.py")
    counts = {
        "depth out": len(stack_out),
        "depth in": len(stack_in),
        "calls out": round((counter.calls.get(MAIN, 0) - calls) / calls, 1),  # less the loop's own call of one()
        "calls in": round(reader_calls / calls, 1),
    }
    by_name = {
        side: {name: n / calls for (ident, name), n in counter.by_name.items() if ident == thread}
        for side, thread in (("out", MAIN), ("in", counter.reader))
    }
    return counts, stack_out, stack_in, by_name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--stacks", action="store_true", help="print the two stacks of each client")
    args = parser.parse_args()
    for client in ("floor", "mcpsync"):
        counts, out, in_, by_name = measure(client, args.calls)
        print("%-8s %s" % (client, "  ".join("%s %s" % item for item in counts.items())))
        if args.stacks:
            for title, stack in (("out", out), ("in", in_)):
                print("  %s:" % title)
                for entry in stack:
                    print("    %s (%s:%d)" % (entry.name, os.path.relpath(entry.filename), entry.lineno))
                print("  calls %s, per call:" % title)
                for name, n in sorted(by_name[title].items(), key=lambda item: -item[1]):
                    print("    %5.1f %s" % (n, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
