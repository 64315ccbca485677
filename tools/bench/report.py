#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the RESULT lines of a benchmark run into a table and a JSON file.

    report.py BENCH LOG [JSON]
    report.py --each KEY... < LOG

RESULT lines are "RESULT group variant iteration key=value ..."; this is
the one place that reads them. The table has one row per metric and
group, medians of the iterations for each variant, and the change of each
variant against the first one (the baseline). The JSON holds, per group
and variant, the medians of every key.

prompt-free, and demo (make demo, the same guest script): the guest's swap
kinds are renamed as the tables and the JSON name them (disk: async, zram:
sync), and each run gains figures computed from its counters (DERIVED):
bypassed_zswap (prompt-free only) and freed_prompt_pct.

Paired runs: when a group has the variants "off" and "on" and runs with
the same iteration number, each such pair gives a ratio on/off of every
key in RATIO_KEYS; the table shows their median with the smallest and the
largest, and the JSON adds them to "on" as KEY_ratio, KEY_ratio_min and
KEY_ratio_max. A variant "aa" (an A/A pair: the baseline twice, run first)
sizes the noise: the ratio of its second run to its first goes beside the
pairs, and into "off" as aa_KEY_ratio; "aa" is not a variant of the JSON.

apps (make bench-apps): groups are workloads; each policy is compared with
the stock runs of its swap kind ("stock" on disk, "zram-stock" on zram):
metric, baseline, policy, delta of the medians, and "paired", the median
of the ratios of each policy run to the stock run beside it (added to the
JSON as KEY_paired_ratio); then a matrix of the changes per workload.

--each: for every RESULT line on stdin as it comes, one line "group
variant iteration VALUE..." with the values of the KEYs as the line wrote
them ("-" for a key it lacks), for progress lines while a run goes on.
"""
import io
import json
import statistics
import sys
from collections import OrderedDict

RATIO_KEYS = ("time_s", "cpu_s", "psi_some_us", "pgscan", "pgsteal")


def result(line):
    """(group, variant, iteration, {key: value as written}) of a RESULT
    line, None for any other line."""
    f = line.split()
    if len(f) < 4 or f[0] != "RESULT":
        return None
    return f[1], f[2], f[3], OrderedDict(kv.partition("=")[::2] for kv in f[4:])


def results(path):
    """The RESULT lines of a log, in order: (group, variant, iteration,
    {key: value}), the values that are numbers."""
    out = []
    # The guest's serial console ends lines with "\r\n": keep "\r" inside.
    for line in open(path, errors="replace", newline="\n"):
        r = result(line)
        if r is None:
            continue
        vals = {}
        for k, v in r[3].items():
            try:
                vals[k] = float(v)
            except ValueError:
                pass
        out.append((r[0], r[1], r[2], vals))
    return out


# Figures computed from the counters of a prompt-free run.
def bypassed_zswap(v):
    """Pages swapped out without going through zswap: pswpout - zswpwb."""
    return float(int(v.get("pswpout", 0) - v.get("zswpwb", 0)))


def freed_prompt_pct(v):
    """The share of the written-back folios that were freed promptly."""
    if not v.get("zswpwb"):
        return 0.0
    return float(f"{100.0 * v.get('freed', 0) / v['zswpwb']:.3f}")


DERIVED = {"bypassed_zswap": bypassed_zswap, "freed_prompt_pct": freed_prompt_pct}

# BENCH: (title of its tables, new names of its groups, derived figures).
BENCHES = {
    "prompt-free": ("prompt-free", {"disk": "async", "zram": "sync"},
                    ("bypassed_zswap", "freed_prompt_pct")),
    "demo": ("demo: zswap_wb prompt freeing, off vs on",
             {"disk": "async_(virtio-blk)", "zram": "sync_(zram)"}, ("freed_prompt_pct",)),
}


def title(bench):
    return BENCHES[bench][0] if bench in BENCHES else bench


def derive(bench, seq):
    """The runs of seq with the group names and the figures of BENCHES."""
    _, names, derived = BENCHES.get(bench, (bench, {}, ()))
    out = []
    for group, variant, it, vals in seq:
        for k in derived:
            vals[k] = DERIVED[k](vals)
        out.append((names.get(group, group), variant, it, vals))
    return out


def parse(seq):
    """{group: {variant: [{key: value}]}} and {group: {variant: {iteration: {key: value}}}}."""
    runs = OrderedDict()
    by_iter = OrderedDict()
    for group, variant, it, vals in seq:
        runs.setdefault(group, OrderedDict()).setdefault(variant, []).append(vals)
        by_iter.setdefault(group, OrderedDict()).setdefault(variant, OrderedDict())[it] = vals
    return runs, by_iter


def pair_ratios(by_iter):
    """{group: {key: (median, min, max, pairs, aa)}} of the on/off ratios."""
    out = OrderedDict()
    for group, variants in by_iter.items():
        off, on, aa = variants.get("off"), variants.get("on"), variants.get("aa")
        if not off or not on:
            continue
        out[group] = OrderedDict()
        for k in RATIO_KEYS:
            r = [on[i][k] / off[i][k] for i in off
                 if i in on and k in on[i] and off[i].get(k)]
            a = None
            if aa and len(aa) >= 2:
                first, second = list(aa.values())[:2]
                if first.get(k) and k in second:
                    a = second[k] / first[k]
            if r:
                out[group][k] = (statistics.median(r), min(r), max(r), len(r), a)
    return out


def ratio_table(ratios):
    lines = ["paired ratios on/off: median [min..max] of the pairs; A/A: second/first run of the A/A pair"]
    for group, keys in ratios.items():
        for k, (med, lo, hi, n, a) in keys.items():
            aa = f"{a:.3f}" if a is not None else "-"
            lines.append(f"  {group:<8}{k:<14}{med:>8.3f} [{lo:.3f}..{hi:.3f}] of {n} pairs   A/A {aa}")
    lines.append("")
    return "\n".join(lines)


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
        base = "off" if "off" in names else names[0]
        lines.append(f"[{group}] medians of {variants[base]['iterations']} iterations per variant")
        head = f"  {'metric':<26}" + "".join(f"{n:>14}" for n in names)
        others = [n for n in names if n != base]
        head += "".join(f"{'vs ' + base + ' (' + n + ')':>20}" for n in others)
        lines.append(head)
        for k in keys:
            if not any(k in variants[n] for n in names):
                continue
            row = f"  {k:<26}" + "".join(f"{fmt(variants[n].get(k)):>14}" for n in names)
            b = variants[base].get(k)
            for n in others:
                v = variants[n].get(k)
                if b and v is not None:
                    row += f"{(v - b) * 100.0 / b:>+19.1f}%"
                else:
                    row += f"{'-':>20}"
            lines.append(row)
        lines.append("")
    return "\n".join(lines)


# apps (make bench-apps): each policy against the stock runs of its swap
# kind, and against the stock run next to each of its runs.
APPS_KEYS = ("build_s", "tps", "avg_ms", "load_s", "rps", "p50_ms", "p95_ms", "p99_ms",
             "time_s", "cpu_s", "psi_some_us", "psi_full_us", "pgrotated",
             "pgscan", "pgsteal", "zswpwb", "swap_ra", "swap_ra_hit", "zswpin",
             "zswpout", "pswpin", "pswpout", "bypassed", "thp_swpout",
             "compress_poor", "ws_refault", "pgmajfault", "freed", "store_rejects",
             "shrink_calls", "ra_faults_alone", "get_pswpin", "get_zswpin",
             "get_pswpout", "get_zswpwb")
APPS_PAIRED = ("build_s", "tps", "avg_ms", "load_s", "rps", "p95_ms", "p99_ms", "cpu_s")


def apps_spread(seq):
    """{workload: {stock variant: {key: (min, max, spread %)}}}: the A/A
    spread of the stock runs of one boot, (max - min) / median."""
    vals = OrderedDict()
    for wl, variant, _, v in seq:
        if variant != apps_baseline(variant):
            continue
        for k in APPS_PAIRED:
            if k in v:
                vals.setdefault(wl, OrderedDict()).setdefault(variant, OrderedDict()) \
                    .setdefault(k, []).append(v[k])
    out = OrderedDict()
    for wl, variants in vals.items():
        for variant, keys in variants.items():
            for k, r in keys.items():
                m = statistics.median(r)
                out.setdefault(wl, {}).setdefault(variant, {})[k] = \
                    (min(r), max(r), (max(r) - min(r)) * 100.0 / m if m else 0.0)
    return out


def apps_baseline(variant):
    return "zram-stock" if variant.startswith("zram-") else "stock"


def apps_neighbours(seq):
    """{workload: {variant: {key: [policy/stock ratios of adjacent runs]}}}."""
    seq = [(wl, variant, vals) for wl, variant, _, vals in seq]
    out = OrderedDict()
    for j, (wl, variant, vals) in enumerate(seq):
        base = apps_baseline(variant)
        if variant == base:
            continue
        # The stock run next to this one: after it, else before it.
        nb = [seq[i] for i in (j + 1, j - 1) if 0 <= i < len(seq)
              and seq[i][0] == wl and seq[i][1] == base]
        if not nb:
            continue
        ref = nb[0][2]
        for k in APPS_PAIRED:
            if ref.get(k) and k in vals:
                out.setdefault(wl, OrderedDict()).setdefault(variant, OrderedDict()) \
                   .setdefault(k, []).append(vals[k] / ref[k])
    return out


def apps_tables(meds, pairs, spread):
    lines = []
    for wl, variants in meds.items():
        for variant, vals in variants.items():
            base = apps_baseline(variant)
            if variant == base or base not in variants:
                continue
            b = variants[base]
            kind = "zram" if base == "zram-stock" else "disk"
            lines.append(f"[{wl}] {variant} against {base} ({kind} swap): medians of "
                         f"{vals['iterations']} and {b['iterations']} runs; paired: "
                         f"median of policy/stock over the runs side by side; A/A: "
                         f"(max - min) / median of the stock runs, '~' where the policy's "
                         f"median lies within them")
            lines.append(f"  {'metric':<22}{'baseline':>14}{'policy':>14}{'delta':>10}{'paired':>10}"
                         f"{'A/A':>8}")
            for k in APPS_KEYS:
                if k not in vals and k not in b:
                    continue
                bv, pv = b.get(k), vals.get(k)
                d = f"{(pv - bv) * 100.0 / bv:+.1f}%" if bv and pv is not None else "-"
                r = pairs.get(wl, {}).get(variant, {}).get(k)
                p = f"{(statistics.median(r) - 1) * 100.0:+.1f}%" if r else ""
                a = spread.get(wl, {}).get(base, {}).get(k)
                aa = ""
                if a and pv is not None:
                    aa = f"{a[2]:.1f}%" + ("~" if a[0] <= pv <= a[1] else " ")
                lines.append(f"  {k:<22}{fmt(bv):>14}{fmt(pv):>14}{d:>10}{p:>10}{aa:>9}")
            lines.append("")
    return "\n".join(lines)


def apps_summary(meds):
    """One matrix per workload and swap kind: stock's medians, each policy's change."""
    lines = ["change of the medians against stock of the same swap kind (a policy's"
             " own value in brackets where stock's is 0)"]
    for wl, variants in meds.items():
        for base in ("stock", "zram-stock"):
            if base not in variants:
                continue
            pols = [v for v in variants if v != base and apps_baseline(v) == base]
            lines.append(f"  {wl + ' ' + ('zram' if base != 'stock' else 'disk'):<22}{base:>12}"
                         + "".join(f"{v.replace('zram-', ''):>17}" for v in pols))
            for k in APPS_KEYS:
                bv = variants[base].get(k)
                if bv is None:
                    continue
                row = f"  {k:<22}{fmt(bv):>12}"
                for v in pols:
                    pv = variants[v].get(k)
                    if pv is None:
                        row += f"{'-':>17}"
                    elif bv:
                        row += f"{(pv - bv) * 100.0 / bv:>+16.1f}%"
                    else:
                        row += f"{'(' + fmt(pv) + ')':>17}"
                lines.append(row)
            lines.append("")
    return "\n".join(lines)


def apps_main(seq, meds, out):
    pairs = apps_neighbours(seq)
    spread = apps_spread(seq)
    print("== apps")
    print(apps_tables(meds, pairs, spread))
    print(apps_summary(meds))
    for wl, variants in pairs.items():
        for variant, keys in variants.items():
            for k, r in keys.items():
                meds[wl][variant][f"{k}_paired_ratio"] = statistics.median(r)
    for wl, variants in spread.items():
        for variant, keys in variants.items():
            for k, (lo, hi, pct) in keys.items():
                meds[wl][variant][f"{k}_aa_spread_pct"] = round(pct, 2)
    if out:
        with open(out, "w") as f:
            json.dump(meds, f, indent=2)
            f.write("\n")
        print(f"wrote {out}")
    return 0


def each(keys):
    """--each KEY...: a line per RESULT line of stdin, as it comes."""
    for line in io.TextIOWrapper(sys.stdin.buffer, errors="replace", newline="\n"):
        r = result(line)
        if r is not None:
            print(" ".join(list(r[:3]) + [r[3].get(k, "-") for k in keys]), flush=True)
    return 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--each":
        return each(sys.argv[2:])
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    bench, log = sys.argv[1], sys.argv[2]
    seq = derive(bench, results(log))
    runs, by_iter = parse(seq)
    if not runs:
        print(f"report.py: no RESULT line in {log}", file=sys.stderr)
        return 1
    ratios = pair_ratios(by_iter)
    meds = medians(runs)
    if bench == "apps":
        return apps_main(seq, meds, sys.argv[3] if len(sys.argv) > 3 else None)
    keys = []
    for variants in meds.values():
        for vals in variants.values():
            for k in vals:
                if k not in keys and k != "iterations":
                    keys.append(k)
    print(f"== {title(bench)}")
    print(table(meds, keys))
    if ratios:
        print(ratio_table(ratios))
        for group, keys_ in ratios.items():
            meds[group].pop("aa", None)
            for k, (med, lo, hi, n, a) in keys_.items():
                name = k[:-2] if k.endswith("_s") else k
                meds[group]["on"][f"{name}_ratio"] = med
                meds[group]["on"][f"{name}_ratio_min"] = lo
                meds[group]["on"][f"{name}_ratio_max"] = hi
                if a is not None:
                    meds[group]["off"][f"aa_{name}_ratio"] = a
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(meds, f, indent=2)
            f.write("\n")
        print(f"wrote {sys.argv[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
