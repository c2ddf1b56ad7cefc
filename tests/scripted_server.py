"""A scripted stdio MCP server for tests: answers each method from a JSON script.

    python scripted_server.py '<script JSON>' [LOG_FILE]

The script maps a method to a list of answers, used in turn (the last one
repeats). An answer is a result object; {"error": {...}} answers with that
error; {"raw": "text"} writes the text as it is; "silent" never answers;
{"after": seconds, "answer": answer} gives ``answer`` after that long (a slow server).
Methods not in the script get -32601. Every line received is appended to
LOG_FILE, so a test can check what the client sent.
"""

import json
import sys
import time

script = json.loads(sys.argv[1])
log = open(sys.argv[2], "a", encoding="utf-8") if len(sys.argv) > 2 else None


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if log is not None:
        log.write(line)
        log.flush()
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    answers = script.get(message["method"])
    if answers is None:
        send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
        continue
    answer = answers.pop(0) if len(answers) > 1 else answers[0]
    if isinstance(answer, dict) and "after" in answer:
        time.sleep(answer["after"])  # the server's own slowness
        answer = answer["answer"]
    if answer == "silent":
        continue
    if isinstance(answer, dict) and "raw" in answer:
        sys.stdout.write(answer["raw"].replace("$ID", json.dumps(message["id"])) + "\n")
        sys.stdout.flush()
    elif isinstance(answer, dict) and "error" in answer:
        send({"jsonrpc": "2.0", "id": message["id"], "error": answer["error"]})
    else:
        send({"jsonrpc": "2.0", "id": message["id"], "result": answer})
