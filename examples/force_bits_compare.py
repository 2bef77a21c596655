#!/usr/bin/env python3
"""Compares two force_bits outputs number by number (`python3 examples/force_bits_compare.py
before.txt after.txt [N]`): per scenario (the label without its step number), the largest
relative difference of each force vector (|a - b| / max(|a|, |b|), vectors by their length)
and of the scalars, and how many lines differ; with N, only the N scenarios that differ most."""
import math, re, struct, sys
from collections import OrderedDict

FIELDS = ["force", "torque", "buoyancy", "viscous", "pressure_drag", "slamming", "air", "damping",
          "centre_of_buoyancy", "volume", "area", "wetted_ratio", "count"]

def parse(path):
    out = OrderedDict()
    for line in open(path):
        label, _, rest = line.rstrip("\n").partition(": ")
        out[label] = rest
    return out

def f(h):
    return struct.unpack(">d", bytes.fromhex(h))[0]

def values(rest):
    m = re.fullmatch(r"\[(\d+), (\d+), (\d+)\] (\d+) (\d+)", rest)
    if m:
        # A replay's detail: the sum of the triangles' forces, pieces and waterline.
        g = [int(x) for x in m.groups()]
        return [[struct.unpack("<d", struct.pack("<Q", x))[0] for x in g[:3]], [g[3]], [g[4]]]
    words = rest.split()
    if not words or any(not re.fullmatch(r"[0-9a-f]{16}", w) for w in words):
        return None
    nums = [f(w) for w in words[:-1]] + [int(words[-1], 16)]
    vecs = [nums[3 * i:3 * i + 3] for i in range(9)] + [[x] for x in nums[27:]]
    return vecs

def rel(a, b):
    na = math.sqrt(sum(x * x for x in a)); nb = math.sqrt(sum(x * x for x in b))
    d = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
    if d == 0.0:
        return 0.0
    if any(math.isnan(x) for x in a + b):
        return float("nan") if not all((math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a, b)) else 0.0
    return d / max(na, nb)

before, after = parse(sys.argv[1]), parse(sys.argv[2])
assert list(before) == list(after), "different scenario lists"
per = OrderedDict()
for label in before:
    scen = re.sub(r" \d+$", "", label)
    p = per.setdefault(scen, {"lines": 0, "differ": 0, "worst": 0.0, "field": "", "text": 0})
    p["lines"] += 1
    if before[label] == after[label]:
        continue
    p["differ"] += 1
    a, b = values(before[label]), values(after[label])
    if a is None or b is None:
        p["text"] += 1
        continue
    names = FIELDS if len(a) == len(FIELDS) else ["detail_force", "pieces", "waterline"]
    for name, x, y in zip(names, a, b):
        r = rel(x, y)
        if r > p["worst"] or math.isnan(r):
            p["worst"], p["field"] = r, name
overall = 0.0
top = int(sys.argv[3]) if len(sys.argv) > 3 else 0
if top:
    items = sorted(per.items(), key=lambda kv: -kv[1]["worst"])[:top]
    print(f"the {top} scenarios with the largest difference:")
else:
    items = per.items()
print(f"{'scenario':60} {'lines':>5} {'differ':>6} {'max rel diff':>12}  field")
overall = max(p["worst"] for p in per.values())
differ = sum(p["differ"] for p in per.values())
lines = sum(p["lines"] for p in per.values())
for scen, p in items:
    overall = max(overall, p["worst"])
    extra = f" ({p['text']} non-numeric lines differ)" if p["text"] else ""
    print(f"{scen:60} {p['lines']:5} {p['differ']:6} {p['worst']:12.3e}  {p['field']}{extra}")
print(f"{differ} of {lines} lines differ; largest relative difference over all scenarios: {overall:.3e}")
