"""A minimal language server for the client's tests: answers `initialize`,
`documentSymbol` (nothing) and `shutdown`, and logs every notification's method
and document to the file named by its argument, and at `initialize` the variables
of its environment whose names start with LSP_TEST_."""

import json
import os
import sys

log = open(sys.argv[1], "a")


def read():
    headers = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        line = line.decode().strip()
        if not line:
            break
        key, value = line.split(":", 1)
        headers[key.lower()] = value.strip()
    return json.loads(sys.stdin.buffer.read(int(headers["content-length"])))


def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


while True:
    message = read()
    method = message.get("method")
    if method and "id" in message:
        if method == "initialize":
            for name, value in sorted(os.environ.items()):
                if name.startswith("LSP_TEST_"):
                    log.write(f"env {name}={value}\n")
            log.flush()
            result = {"capabilities": {"documentSymbolProvider": True, "textDocumentSync": 1}}
        elif method == "textDocument/documentSymbol":
            result = []
        else:
            result = None
        send({"jsonrpc": "2.0", "id": message["id"], "result": result})
    elif method:
        uri = (message.get("params") or {}).get("textDocument", {}).get("uri", "")
        log.write(f"{method} {uri}\n")
        log.flush()
        if method == "exit":
            sys.exit(0)
