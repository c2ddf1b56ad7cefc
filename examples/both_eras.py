"""One script, unchanged, against a server of each protocol era.

    python examples/both_eras.py

The bundled test server speaks both eras; ``--legacy-only`` makes it a
2025-11-25 server (the ``initialize`` handshake only). mcpsync finds out which
by itself (``protocol="auto"``, the default): ``server/discover`` first, the
handshake when the server does not know it. What ``use`` does, and what it
gets, is the same on both.
"""

import sys

import mcpsync

SERVERS = {
    "a 2025-11-25 server": [sys.executable, "-m", "mcpsync.testing", "--legacy-only"],
    "a 2026-07-28 server": [sys.executable, "-m", "mcpsync.testing"],
}


def use(client):
    """What a script does with a server: the same calls, whichever era it speaks."""
    steps = []
    client.set_logging_level("warning")  # a request on 2025-11-25; each request's _meta on 2026-07-28
    client.ping()  # ping on 2025-11-25; server/discover on 2026-07-28
    return [
        f"{len(client.list_tools())} tools",
        client.call_tool("echo", {"text": "hello"}).text,
        str(client.call_tool("add", {"a": 2, "b": 40}).structured_content),
        client.call_tool("progress", {"steps": 3}, on_progress=lambda done, total, message: steps.append(done)).text
        + f" after {steps}",
        client.read_resource("text://greeting").text,
        client.get_prompt("greet", {"name": "Ada"}).messages[0].text,
    ]


def main():
    for label, command in SERVERS.items():
        with mcpsync.connect(command, timeout=10) as client:
            print(f"{label}: the {client.era} era, protocol {client.protocol_version}")
            for line in use(client):
                print("   ", line)


if __name__ == "__main__":
    main()
