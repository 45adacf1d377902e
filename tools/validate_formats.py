#!/usr/bin/env python3
"""Checks provider-shaped views (replay output with --view-format) against each provider's rules.

usage: validate_formats.py --format anthropic|ai-sdk|openai-responses|openai-chat
                           [--source TRANSCRIPT.jsonl ...] [--ignore RULE,...] OUTPUT.jsonl [...]
Each OUTPUT line's `view` holds the request in that provider's shape:
  anthropic:         {"system": str|list|null, "messages": [MessageParam...]}  (a bare list is accepted too)
  ai-sdk:            [ModelMessage...]
  openai-responses:  [input item...]
  openai-chat:       [ChatCompletionMessageParam...]
Rules:
  anthropic  A1 roles are user/assistant only; A2 every tool_use id of an assistant turn is answered by a
             tool_result in the user turn right after it (consecutive same-role messages merged, as the API
             does), tool_result blocks before other blocks in that turn; A3 every tool_result answers a
             tool_use of the assistant turn right before; A4 tool_use ids unique; A5 first turn is user;
             A6 thinking/redacted_thinking blocks are byte-identical to a block of a --source transcript;
             A7 no keys outside the API's (metadata, _seq, _truncated ...) on messages.
  ai-sdk     S1 roles system/user/assistant/tool; S2 every tool-call (not providerExecuted) is answered by a
             tool-result in the tool messages right after; S3 every tool-result answers a call of the
             assistant right before its run; S4 ids unique; S5 no foreign keys on messages.
  responses  O1 every function_call/custom_tool_call has an output item with its call_id after it;
             O2 every output has its call before it; O3 call ids unique; O4 only the keys the API accepts on the item's type.
  openai-chat C1 = validate_views.py R1-R4 (codes R1-R4) and C5 no keys outside the API's on messages.
An open group at the very end of a view (results still arriving) is tolerated, as in validate_views.py.
Prints a line per violation (first 20) and 'views: V checked, I invalid'.
"""
import gzip, json, sys

ANTHROPIC_MSG_KEYS = {"role", "content"}
AISDK_MSG_KEYS = {"role", "content", "providerOptions"}
CHAT_MSG_KEYS = {"role", "content", "name", "tool_calls", "tool_call_id", "refusal", "function_call", "audio"}
# Keys per Responses input item type: openai@6 ResponseInputItem (resources/responses/responses.d.ts).
RESP_KEYS_BY_TYPE = {
    "apply_patch_call": {"type", "call_id", "id", "operation", "status"},
    "apply_patch_call_output": {"type", "call_id", "id", "output", "status"},
    "code_interpreter_call": {"type", "code", "container_id", "id", "outputs", "status"},
    "compaction": {"type", "encrypted_content", "id"},
    "computer_call": {"type", "action", "actions", "call_id", "id", "pending_safety_checks", "status"},
    "computer_call_output": {"type", "acknowledged_safety_checks", "call_id", "id", "output", "status"},
    "custom_tool_call": {"type", "call_id", "id", "input", "name", "namespace"},
    "custom_tool_call_output": {"type", "call_id", "id", "output"},
    "file_search_call": {"type", "id", "queries", "results", "status"},
    "function_call": {"type", "arguments", "call_id", "id", "name", "namespace", "status"},
    "function_call_output": {"type", "call_id", "id", "output", "status"},
    "image_generation_call": {"type", "id", "result", "status"},
    "item_reference": {"type", "id"},
    "local_shell_call": {"type", "action", "call_id", "id", "status"},
    "local_shell_call_output": {"type", "id", "output", "status"},
    "mcp_approval_request": {"type", "arguments", "id", "name", "server_label"},
    "mcp_approval_response": {"type", "approval_request_id", "approve", "id", "reason"},
    "mcp_call": {"type", "approval_request_id", "arguments", "error", "id", "name", "output", "server_label", "status"},
    "mcp_list_tools": {"type", "error", "id", "server_label", "tools"},
    "message": {"type", "content", "id", "phase", "role", "status"},
    "reasoning": {"type", "content", "encrypted_content", "id", "status", "summary"},
    "shell_call": {"type", "action", "call_id", "environment", "id", "status"},
    "shell_call_output": {"type", "call_id", "id", "max_output_length", "output", "status"},
    "tool_search_call": {"type", "arguments", "call_id", "execution", "id", "status"},
    "tool_search_output": {"type", "call_id", "execution", "id", "status", "tools"},
    "web_search_call": {"type", "action", "id", "status"},
}
RESP_ITEM_KEYS = set().union(*RESP_KEYS_BY_TYPE.values())


def blocks(content):
    if isinstance(content, list):
        return content
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return []


def merge_turns(messages):
    turns = []
    for m in messages:
        if turns and turns[-1]["role"] == m.get("role"):
            turns[-1]["blocks"] += blocks(m.get("content"))
        else:
            turns.append({"role": m.get("role"), "blocks": list(blocks(m.get("content")))})
    return turns


def check_anthropic(view, thinking_ok):
    p = []
    msgs = view.get("messages") if isinstance(view, dict) else view
    if not isinstance(msgs, list):
        return ["A1 view has no messages list"]
    for i, m in enumerate(msgs):
        if m.get("role") not in ("user", "assistant"):
            p.append(f"A1 message {i} role {m.get('role')!r}")
        extra = set(m) - ANTHROPIC_MSG_KEYS
        if extra:
            p.append(f"A7 message {i} extra keys {sorted(extra)}")
    turns = merge_turns(msgs)
    if turns and turns[0]["role"] != "user":
        p.append("A5 first turn is not user")
    seen = set()
    for t, turn in enumerate(turns):
        if turn["role"] == "assistant":
            ids = [b.get("id") for b in turn["blocks"] if isinstance(b, dict) and b.get("type") == "tool_use"]
            for x in ids:
                if x in seen:
                    p.append(f"A4 duplicate tool_use id {x}")
                seen.add(x)
            if thinking_ok is not None:
                for b in turn["blocks"]:
                    if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"):
                        if json.dumps(b, sort_keys=True) not in thinking_ok:
                            p.append(f"A6 turn {t} has a thinking block not found verbatim in the source")
            if ids:
                if t + 1 >= len(turns):
                    continue  # open group at the tail
                nxt = turns[t + 1]
                res = [b for b in nxt["blocks"] if isinstance(b, dict) and b.get("type") == "tool_result"]
                answered = {b.get("tool_use_id") for b in res}
                missing = [x for x in ids if x not in answered]
                if missing and t + 2 < len(turns):
                    p.append(f"A2 tool_use {missing[:3]} of turn {t} unanswered in the next turn")
                kinds = [isinstance(b, dict) and b.get("type") == "tool_result" for b in nxt["blocks"]]
                if True in kinds and False in kinds and kinds.index(False) < len(kinds) - kinds[::-1].index(True) - 1:
                    p.append(f"A2 turn {t + 1} has other blocks before its tool_result blocks")
        else:
            prev_ids = set()
            if t > 0 and turns[t - 1]["role"] == "assistant":
                prev_ids = {b.get("id") for b in turns[t - 1]["blocks"] if isinstance(b, dict) and b.get("type") == "tool_use"}
            for b in turn["blocks"]:
                if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") not in prev_ids:
                    p.append(f"A3 tool_result {b.get('tool_use_id')} in turn {t} answers no tool_use of the turn before")
    return p


def check_aisdk(view):
    p = []
    if not isinstance(view, list):
        return ["S1 view is not a list"]
    seen = set()
    n = len(view)
    for i, m in enumerate(view):
        if m.get("role") not in ("system", "user", "assistant", "tool"):
            p.append(f"S1 message {i} role {m.get('role')!r}")
        extra = set(m) - AISDK_MSG_KEYS
        if extra:
            p.append(f"S5 message {i} extra keys {sorted(extra)}")
    i = 0
    while i < n:
        m = view[i]
        if m.get("role") == "assistant":
            calls = [b for b in blocks(m.get("content")) if isinstance(b, dict) and b.get("type") == "tool-call" and not b.get("providerExecuted")]
            ids = [c.get("toolCallId") for c in calls]
            for x in ids:
                if x in seen:
                    p.append(f"S4 duplicate toolCallId {x}")
                seen.add(x)
            j = i + 1
            answered = set()
            while j < n and view[j].get("role") == "tool":
                for b in blocks(view[j].get("content")):
                    if isinstance(b, dict) and b.get("type") == "tool-result":
                        if b.get("toolCallId") not in ids:
                            p.append(f"S3 tool-result {b.get('toolCallId')} at {j} answers no call of message {i}")
                        answered.add(b.get("toolCallId"))
                j += 1
            missing = [x for x in ids if x not in answered]
            if missing and j < n:
                p.append(f"S2 calls {missing[:3]} of message {i} unanswered")
            i = j
            continue
        if m.get("role") == "tool":
            p.append(f"S3 tool message at {i} has no assistant call right before it")
        i += 1
    return p


def check_responses(view):
    p = []
    if not isinstance(view, list):
        return ["O1 view is not a list"]
    calls, outs = {}, {}
    for i, it in enumerate(view):
        t = it.get("type", "message" if "role" in it else None)
        extra = set(it) - RESP_KEYS_BY_TYPE.get(t, RESP_ITEM_KEYS)
        if extra:
            p.append(f"O4 item {i} extra keys {sorted(extra)}")
        if t in ("function_call", "custom_tool_call"):
            cid = it.get("call_id")
            if cid in calls:
                p.append(f"O3 duplicate call_id {cid}")
            calls[cid] = i
        elif t in ("function_call_output", "custom_tool_call_output"):
            cid = it.get("call_id")
            if cid not in calls:
                p.append(f"O2 output {cid} at {i} has no call before it")
            outs.setdefault(cid, i)
    last_non_output = max([i for i, it in enumerate(view) if it.get("type") not in ("function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "reasoning")] or [-1])
    for cid, i in calls.items():
        if cid not in outs and i < last_non_output:
            p.append(f"O1 call {cid} at {i} has no output")
    return p


def check_chat(view):
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import validate_views
    p = validate_views.check(view)
    for i, m in enumerate(view):
        extra = set(m) - CHAT_MSG_KEYS
        if extra:
            p.append(f"C5 message {i} extra keys {sorted(extra)}")
    return p


def thinking_from_sources(paths):
    ok = set()
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        for line in opener(path, "rt", encoding="utf-8"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            msg = d.get("message") or {}
            for b in blocks(msg.get("content")) if isinstance(msg, dict) else []:
                if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"):
                    ok.add(json.dumps(b, sort_keys=True))
    return ok


def main():
    args = sys.argv[1:]
    fmt, ignore, sources, files = None, set(), [], []
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--format":
            fmt = args[k + 1]; k += 2
        elif a == "--ignore":
            ignore = set(args[k + 1].split(",")); k += 2
        elif a == "--source":
            sources.append(args[k + 1]); k += 2
        else:
            files.append(a); k += 1
    thinking_ok = thinking_from_sources(sources) if sources else None
    checked = invalid = shown = 0
    for path in files:
        for line in open(path, encoding="utf-8"):
            if not line.strip().startswith("{"):
                continue
            d = json.loads(line)
            view = d.get("view")
            if view is None:
                continue
            checked += 1
            if fmt == "anthropic":
                p = check_anthropic(view, thinking_ok)
            elif fmt == "ai-sdk":
                p = check_aisdk(view)
            elif fmt == "openai-responses":
                p = check_responses(view)
            else:
                p = check_chat(view)
            p = [x for x in p if x.split()[0] not in ignore]
            if p:
                invalid += 1
                if shown < 20:
                    print(f"{path} op {d.get('op_index')}: {'; '.join(p[:3])}")
                    shown += 1
    print(f"views: {checked} checked, {invalid} invalid")
    sys.exit(1 if invalid or not checked else 0)


if __name__ == "__main__":
    main()
