#!/usr/bin/env python3
"""Compares the product's replay output with expected (reference) output.

usage: conformance.py CASES_DIR [--recordings DIR] [--cmd 'npx --no-install context-simple replay {rec} --format recording --json']
                      [--only NAME_SUBSTR] [--show N] [--timeout S]
CASES_DIR holds NAME.recording.jsonl + NAME.expected.jsonl[.gz] pairs. Runs the command in the
current directory (the product checkout), compares request by request (view, events, meter
stats, compaction stats, error), prints one line per failing case with its first difference,
and finally 'conformance: P of N cases identical' (exit 0 when all pass, 1 otherwise).
"""
import gzip, hashlib, json, os, shlex, subprocess, sys

DEFAULT_CMD = "npx --no-install context-simple replay {rec} --format recording --json"


def load_jsonl(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def norm(x):
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, list):
        return [norm(v) for v in x]
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    return x


def first_diff(a, b, path=""):
    if type(a) != type(b):
        return f"{path or '.'}: expected {short(a)}, got {short(b)}"
    if isinstance(a, dict):
        for k in a:
            if k not in b:
                return f"{path}.{k}: missing"
            d = first_diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        for k in b:
            if k not in a:
                return f"{path}.{k}: unexpected field"
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path}: expected {len(a)} items, got {len(b)}"
        return None
    if isinstance(a, float) and isinstance(b, float):
        if a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a)):
            return None
    return None if a == b else f"{path or '.'}: expected {short(a)}, got {short(b)}"


def short(v):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) < 160 else s[:150] + "...(" + str(len(s)) + " chars)"


FIELDS = ("op_index", "view", "events", "token_meter_stats", "compaction_stats", "error")


def canonical_sha256(x):
    """sha256 of the canonical JSON of x: keys sorted, separators ',' ':', UTF-8, no ASCII escaping."""
    s = json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def compare(expected, got):
    if len(expected) != len(got):
        head = f"expected {len(expected)} output lines, got {len(got)}"
    else:
        head = None
    for i, (e, g) in enumerate(zip(expected, got)):
        if "view_sha256" in e:
            if canonical_sha256(g.get("view")) != e["view_sha256"]:
                vs = g.get("view") or []
                return f"request line {i} (op {e.get('op_index')}): view differs (expected {e.get('view_messages')} messages, got {len(vs)})"
        for field in FIELDS:
            if field == "view" and "view_sha256" in e:
                continue
            if field not in e and field not in g:
                continue
            d = first_diff(norm(e.get(field)), norm(g.get(field)), field)
            if d:
                return f"request line {i} (op {e.get('op_index')}): {d}"
    return head


def main():
    args = sys.argv[1:]
    cases_dir = args[0]
    cmd = args[args.index("--cmd") + 1] if "--cmd" in args else DEFAULT_CMD
    only = args[args.index("--only") + 1] if "--only" in args else ""
    show = int(args[args.index("--show") + 1]) if "--show" in args else 20
    timeout = float(args[args.index("--timeout") + 1]) if "--timeout" in args else 120
    rec_dir = args[args.index("--recordings") + 1] if "--recordings" in args else cases_dir
    names = sorted(f.split(".expected.jsonl")[0] for f in os.listdir(cases_dir)
                   if ".expected.jsonl" in f and only in f)
    passed, shown, families = 0, 0, {}
    for name in names:
        rec = os.path.join(rec_dir, name + ".recording.jsonl")
        if not os.path.exists(rec) and os.path.exists(rec + ".gz"):
            rec += ".gz"  # the replay CLI reads gzipped recordings as they are
        exp_path = next((p for p in (os.path.join(cases_dir, name + s) for s in (".expected.jsonl", ".expected.jsonl.gz")) if os.path.exists(p)), None)
        fam = name.split("-")[0]
        families.setdefault(fam, [0, 0])
        families[fam][1] += 1
        if exp_path is None:
            continue
        expected = load_jsonl(exp_path)
        try:
            proc = subprocess.run(shlex.split(cmd.format(rec=rec)), capture_output=True, text=True, timeout=timeout)
            got = [json.loads(l) for l in proc.stdout.splitlines() if l.strip().startswith("{")]
            problem = compare(expected, got) if proc.returncode == 0 or got else f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
        except subprocess.TimeoutExpired:
            problem = f"no answer in {timeout:.0f} s"
        except json.JSONDecodeError as e:
            problem = f"unparseable output: {e}"
        if problem is None:
            passed += 1
            families[fam][0] += 1
        elif shown < show:
            print(f"{name}: {problem}")
            shown += 1
    print("by family: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(families.items())))
    print(f"conformance: {passed} of {len(names)} cases identical")
    sys.exit(0 if passed == len(names) else 1)


if __name__ == "__main__":
    main()
