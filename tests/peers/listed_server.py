"""A stdio MCP server that serves a saved tool list: `python3 listed_server.py
LIST.json` lists the tools of LIST.json (a `tools/list` result, as the tool search's
evaluation keeps them) and answers every call with its name and arguments, so the
agent's tool search can be run black-box over real servers' lists.
The server's `instructions` are the file's `instructions` key, when it has one.
"""

import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        listed = json.load(f)
    tools = listed["tools"]
    for line in sys.stdin:
        message = json.loads(line)
        method, id_ = message.get("method"), message.get("id")
        if id_ is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": listed.get("package", "listed"), "version": "0"}}
            if listed.get("instructions"):
                result["instructions"] = listed["instructions"]
            send({"jsonrpc": "2.0", "id": id_, "result": result})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": id_, "result": {"tools": tools}})
        elif method == "tools/call":
            params = message["params"]
            text = "called %s with %s" % (params["name"], json.dumps(params.get("arguments", {}), sort_keys=True))
            send({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": text}]}})
        else:
            send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "no method " + str(method)}})


if __name__ == "__main__":
    main()
