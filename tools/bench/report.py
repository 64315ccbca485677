#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the RESULT lines of a benchmark run into a table and a JSON file.

    report.py BENCH LOG [JSON]

RESULT lines are "RESULT group variant iteration key=value ...". The table
has one row per metric and group, medians of the iterations for each
variant, and the change of each variant against the first one (the
baseline). The JSON holds, per group and variant, the medians of every key.
"""
import json
import statistics
import sys
from collections import OrderedDict


def parse(path):
    runs = OrderedDict()
    # The guest's serial console ends lines with "\r\n": keep "\r" inside.
    for line in open(path, errors="replace", newline="\n"):
        f = line.split()
        if len(f) < 4 or f[0] != "RESULT":
            continue
        group, variant = f[1], f[2]
        vals = {}
        for kv in f[4:]:
            k, _, v = kv.partition("=")
            try:
                vals[k] = float(v)
            except ValueError:
                pass
        runs.setdefault(group, OrderedDict()).setdefault(variant, []).append(vals)
    return runs


def medians(runs):
    out = OrderedDict()
    for group, variants in runs.items():
        out[group] = OrderedDict()
        for variant, its in variants.items():
            keys = OrderedDict((k, None) for it in its for k in it)
            out[group][variant] = OrderedDict(
                (k, statistics.median(it[k] for it in its if k in it)) for k in keys)
            out[group][variant]["iterations"] = len(its)
    return out


def fmt(v):
    if v is None:
        return "-"
    if abs(v - round(v)) < 1e-9 and abs(v) >= 1:
        return f"{int(round(v)):,}"
    return f"{v:,.2f}"


def table(meds, keys):
    lines = []
    for group, variants in meds.items():
        names = list(variants)
        base = names[0]
        lines.append(f"[{group}] medians of {variants[base]['iterations']} iterations per variant")
        head = f"  {'metric':<26}" + "".join(f"{n:>14}" for n in names)
        head += "".join(f"{'vs ' + base + ' (' + n + ')':>20}" for n in names[1:])
        lines.append(head)
        for k in keys:
            if not any(k in variants[n] for n in names):
                continue
            row = f"  {k:<26}" + "".join(f"{fmt(variants[n].get(k)):>14}" for n in names)
            b = variants[base].get(k)
            for n in names[1:]:
                v = variants[n].get(k)
                if b and v is not None:
                    row += f"{(v - b) * 100.0 / b:>+19.1f}%"
                else:
                    row += f"{'-':>20}"
            lines.append(row)
        lines.append("")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    bench, log = sys.argv[1], sys.argv[2]
    runs = parse(log)
    if not runs:
        print(f"report.py: no RESULT line in {log}", file=sys.stderr)
        return 1
    meds = medians(runs)
    keys = []
    for variants in meds.values():
        for vals in variants.values():
            for k in vals:
                if k not in keys and k != "iterations":
                    keys.append(k)
    print(f"== {bench}")
    print(table(meds, keys))
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(meds, f, indent=2)
            f.write("\n")
        print(f"wrote {sys.argv[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
