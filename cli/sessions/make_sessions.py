"""Writes the bundled sessions in the providers' streaming wire formats.

The sessions are scripted, not captured from a live API (this repository's CI has
no key and no network), but every byte follows the documented wire formats:
Anthropic Messages SSE (`message_start`, `content_block_start/delta/stop` with
`text_delta` and `input_json_delta`, `message_delta`, `message_stop`) and OpenAI
Chat Completions chunks (`data: {chat.completion.chunk}` ... `data: [DONE]`), with
text and tool arguments split into small fragments the way the APIs stream them.
One file holds the assistant's turns in order, one streamed response each.

Run: python3 cli/sessions/make_sessions.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def fragments(text, size=7):
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def anthropic_turn(n, text, calls, stop="tool_use"):
    """One streamed Messages response: optional text, then tool_use blocks."""
    out = []

    def event(kind, data):
        out.append(f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n")

    event("message_start", {"type": "message_start", "message": {
        "id": f"msg_replay_{n:02}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1200 + 150 * n, "output_tokens": 1}}})
    index = 0
    if text:
        event("content_block_start", {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
        event("ping", {"type": "ping"})
        for piece in fragments(text, 12):
            event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}})
        event("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    for i, (name, args) in enumerate(calls):
        call_id = f"toolu_replay_{n:02}_{i}"
        event("content_block_start", {"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}})
        event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": ""}})
        for piece in fragments(json.dumps(args)):
            event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}})
        event("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 40 + 30 * len(calls)}})
    event("message_stop", {"type": "message_stop"})
    return "".join(out)


def openai_turn(n, text, calls, finish="tool_calls"):
    """One streamed Chat Completions response."""
    out = []
    base = {"id": f"chatcmpl-replay{n:02}", "object": "chat.completion.chunk", "created": 1764460800 + n, "model": "gpt-4.1"}

    def chunk(delta, finish_reason=None):
        data = dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}])
        out.append(f"data: {json.dumps(data, separators=(',', ':'))}\n\n")

    chunk({"role": "assistant", "content": "" if text else None})
    for piece in fragments(text or "", 10) if text else []:
        chunk({"content": piece})
    for i, (name, args) in enumerate(calls):
        chunk({"tool_calls": [{"index": i, "id": f"call_replay_{n:02}_{i}", "type": "function", "function": {"name": name, "arguments": ""}}]})
        for piece in fragments(json.dumps(args)):
            chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    chunk({}, finish if calls else "stop")
    out.append("data: [DONE]\n\n")
    return "".join(out)


SESSIONS = {
    "fix-failing-test.anthropic.sse": (anthropic_turn, [
        ("I'll start by running the test suite to see what fails.", [
            ("shell", {"command": "python3 -m unittest -q", "description": "Run the tests"})]),
        ("test_mean fails and mean([7]) divides by zero. Let me read calc.py and find every caller of mean.", [
            ("read_file", {"path": "calc.py"}),
            ("grep", {"pattern": "mean\\(", "output_mode": "content", "-n": True})]),
        ("mean() divides by len(values) - 1; the arithmetic mean divides by len(values). Fixing it.", [
            ("edit_file", {"path": "calc.py", "old_string": "sum(values) / (len(values) - 1)", "new_string": "sum(values) / len(values)"})]),
        ("Running the tests again.", [
            ("shell", {"command": "python3 -m unittest -q", "description": "Run the tests"})]),
        ("All 4 tests pass. The bug was an off-by-one in mean(): it divided by n - 1 instead of n.", []),
    ]),
    "explore.openai.sse": (openai_turn, [
        ("Let me get an overview of the project.", [
            ("glob", {"pattern": "**/*.py"}),
            ("list_dir", {"path": "."}),
            ("grep", {"pattern": "^def ", "output_mode": "content", "-n": True}),
            ("read_file", {"path": "README.md"})]),
        ("Now the modules themselves.", [
            ("read_file", {"path": "calc.py"}),
            ("read_file", {"path": "stats/report.py"}),
            ("read_file", {"path": "stats/load.py"}),
            ("grep", {"pattern": "import", "output_mode": "files_with_matches"})]),
        ("calc.py holds add, mean and spread; stats/report.py formats a report from mean and spread; "
         "stats/load.py reads one number per line. test_calc.py covers calc.py only.", []),
    ]),
    "trouble.anthropic.sse": (anthropic_turn, [
        ("Let me run the tests and look at the file.", [
            ("run_tests", {"path": "."}),
            ("read_file", {"file": "calc.py"})]),
        ("run_tests does not exist; I'll use the shell. First, clean up old build output.", [
            ("shell", {"command": "rm -rf build"}),
            ("shell", {"command": "git init -q"})]),
        ("Now the slow integration check, with a short timeout.", [
            ("shell", {"command": "sleep 30", "timeout": 1000})]),
        ("The tool name was wrong, read_file wants `path`, rm -rf is denied here, and the check timed out. "
         "I'll stop and report back.", []),
    ]),
    "plan.anthropic.sse": (anthropic_turn, [
        ("I'll follow the project's bug-fixing skill.", [
            ("Skill", {"skill": "fix-a-bug", "args": "mean() gives the wrong result"})]),
        ("The skill says to run the tests first.", [
            ("Bash", {"command": "python3 -m unittest -q", "description": "Run the tests"})]),
        ("mean() fails two tests. One question before planning.", [
            ("AskUserQuestion", {"questions": [{
                "question": "How far should the fix go?", "header": "Scope", "multiSelect": False,
                "options": [
                    {"label": "Only mean() (Recommended)", "description": "Fix the divisor and nothing else"},
                    {"label": "mean() and spread()", "description": "Also review spread() for the same mistake"}]}]})]),
        ("Into plan mode to design the fix.", [("EnterPlanMode", {})]),
        ("Reading the code while planning.", [
            ("Read", {"file_path": "calc.py"}),
            ("Grep", {"pattern": "mean\\(", "output_mode": "content", "-n": True})]),
        ("Two steps; tracking them as tasks.", [
            ("TaskCreate", {"subject": "Fix the divisor in mean()", "description": "calc.py: divide by len(values)",
                            "activeForm": "Fixing mean()"}),
            ("TaskCreate", {"subject": "Run the tests", "description": "python3 -m unittest -q",
                            "activeForm": "Running the tests"})]),
        ("The plan is ready for approval.", [
            ("ExitPlanMode", {"plan": "## Fix mean()\n1. In calc.py, divide by len(values), not len(values) - 1.\n"
                                      "2. Run the tests.\nThe change is made in a worktree, kept for review."})]),
        ("Approved. The change goes in a worktree.", [("EnterWorktree", {"name": "fix-mean"})]),
        ("", [
            ("TaskUpdate", {"taskId": "1", "status": "in_progress"}),
            ("Read", {"file_path": "calc.py"})]),
        ("", [
            ("Edit", {"file_path": "calc.py", "old_string": "sum(values) / (len(values) - 1)",
                      "new_string": "sum(values) / len(values)"})]),
        ("", [("Bash", {"command": "python3 -m unittest -q", "description": "Run the tests"})]),
        ("The tests pass in the worktree.", [
            ("TaskUpdate", {"taskId": "1", "status": "completed"}),
            ("TaskUpdate", {"taskId": "2", "status": "completed"}),
            ("ExitWorktree", {"action": "keep"}),
            ("TaskList", {})]),
        ("Fixed: mean() divides by len(values). The plan was approved, both tasks are done, and the change is in "
         "the worktree .claude/worktrees/fix-mean (branch worktree-fix-mean), kept for review.", []),
    ]),
}


# A session with subagents: sections of `--- agent: NAME`, `main` first, then each
# child's responses under the `description` of the agent call that starts it.
DELEGATE = {
    "main": [
        ("Two read-only explorers will map the code and the tests at the same time.", [
            ("Agent", {"description": "map calc.py", "subagent_type": "Explore",
                       "prompt": "Find how mean() in calc.py computes its result and list every caller of mean()."}),
            ("Agent", {"description": "map the tests", "subagent_type": "Explore",
                       "prompt": "Read test_calc.py and say which tests cover mean() and what each expects."})]),
        ("mean() divides by n - 1. A worker will fix it and run the tests.", [
            ("Agent", {"description": "fix mean", "subagent_type": "general-purpose",
                       "prompt": "In calc.py, mean() must divide by len(values), not len(values) - 1. "
                                 "Fix it with one edit, run `python3 -m unittest -q`, and report the result."})]),
        ("Fixed: mean() now divides by n. The explorers found the bug and its callers, "
         "the worker fixed it and all 4 tests pass. One explorer tried to edit a file and was refused: "
         "Explore agents only read.", []),
    ],
    "map calc.py": [
        ("", [("read_file", {"path": "calc.py"}),
              ("grep", {"pattern": "mean\\(", "output_mode": "content", "-n": True})]),
        ("The bug is plain; I'll fix it myself.", [
            ("edit_file", {"path": "calc.py", "old_string": "(len(values) - 1)", "new_string": "len(values)"})]),
        ("mean() in calc.py returns sum(values) / (len(values) - 1): it divides by n - 1. "
         "Callers: stats/report.py (report) and test_calc.py. I could not edit calc.py: this agent only reads.", []),
    ],
    "map the tests": [
        ("", [("read_file", {"path": "test_calc.py"})]),
        ("test_mean expects mean([2, 4, 6]) == 4 and test_mean_of_one expects mean([7]) == 7; "
         "both fail while mean() divides by n - 1.", []),
    ],
    "fix mean": [
        ("", [("read_file", {"path": "calc.py"})]),
        ("", [("edit_file", {"path": "calc.py", "old_string": "sum(values) / (len(values) - 1)",
                             "new_string": "sum(values) / len(values)"})]),
        ("", [("shell", {"command": "python3 -m unittest -q", "description": "Run the tests"})]),
        ("mean() now divides by len(values); `python3 -m unittest -q` runs 4 tests, all OK.", []),
    ],
}


def turns_text(turn, turns, first=1):
    return "".join(turn(first + n, t, calls, *(() if calls else ("end_turn",) if turn is anthropic_turn else ("stop",)))
                   for n, (t, calls) in enumerate(turns))


def main():
    for name, (turn, turns) in SESSIONS.items():
        text = turns_text(turn, turns)
        with open(os.path.join(HERE, name), "w") as f:
            f.write(text)
        print(f"wrote {name}: {len(turns)} turns, {len(text)} bytes")
    text = ""
    for n, (agent, turns) in enumerate(DELEGATE.items()):
        text += f"--- agent: {agent}\n" + turns_text(anthropic_turn, turns, first=10 * n + 1)
    with open(os.path.join(HERE, "delegate.anthropic.sse"), "w") as f:
        f.write(text)
    print(f"wrote delegate.anthropic.sse: {len(DELEGATE)} agents, {len(text)} bytes")


if __name__ == "__main__":
    main()
