#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report a benchmark run: its tables, its JSON and the figures.

    report.py BENCH LOG [JSON]
    report.py figures [RESULTS_DIR [OUT_DIR]]

Every comparison of make bench and make bench-apps is one zswbctl ab in
the guest, which prints "ABSIDES GROUP KIND L=VARIANT..." (the side
letters and the variants they are) and each line of ab's --csv as
"ABCSV GROUP KIND LINE" (bench_ab() in tools/bench/guest/lib.sh;
tools/bench/apps/apps.sh). For each comparison this keeps the runs as
BENCH-[GROUP-]KIND.csv beside the JSON and reports them again with
zswbctl ab --from-csv (the zswbctl of this tree), its primary metric
the one ab judged by in the guest (the "# primary: METRIC, at alpha A"
line of ab's report in the log): per side after A and metric, A's and
the side's medians, ab's change (the Hodges-Lehmann estimate over the
pairs, as a % of A, with its exact interval; a difference in the
metric's units where A's median is 0), its p (Benjamini-Hochberg
adjusted for all but the primary metric) and its verdict, for the
metrics of BENCH_TABLE in tools/bench/config/BENCH.conf (table_keys()). The JSON holds, per group
(ab_group()) and variant, the medians, ab's figures and every run. apps
adds a matrix of the changes per workload and results.rst's compact
table.

A log without an ABSIDES line is not a comparison (profile): its guest
prints "RESULT group variant iteration key=value ..." lines, one per run,
which become a table of each variant's values and its JSON.

figures: an SVG per comparison of a benchmark of tools/bench/config
whose CSV and JSON are in RESULTS_DIR, drawn by zswbctl-plot from ab's
report (fig_ab()), and the free-latency and shrink-calls pictures from
prompt-free.json and shrinker.json. A comparison of another boot kept
beside the latest of its group and kind is BENCH-[GROUP-]KIND.TAG.csv,
renamed so by hand, its JSON, if kept, as the group GROUP.TAG; it is
drawn as BENCH-[GROUP-]KIND.TAG.svg.
"""
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import OrderedDict

# The benchmarks' files: tools/bench/config/NAME.conf each.
CONF_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "config")


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


# The keys of the free-latency histogram (prompt-free), in the JSON only.
HIST_PREFIX = "cmd.free_lat_lt_"

# prompt-free's names of the swap kinds, as its tables and JSON give them.
PROMPT_FREE_KINDS = {"disk": "async", "zram": "sync"}


def title(bench):
    return bench


def parse(seq):
    """{group: {variant: [{key: value}]}}."""
    runs = OrderedDict()
    for group, variant, _, vals in seq:
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


def add_runs(meds, runs):
    """Each variant of the JSON gets "runs": {key: [the value of each run,
    in the order they ran]}, for the figures' points."""
    for group, variants in runs.items():
        for variant, its in variants.items():
            if variant in meds.get(group, {}):
                keys = OrderedDict((k, None) for it in its for k in it)
                meds[group][variant]["runs"] = OrderedDict(
                    (k, [it.get(k) for it in its]) for k in keys)


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
        base = next((b for b in ("off", "stock") if b in names), names[0])
        lines.append(f"[{group}] medians of {variants[base]['iterations']} iterations per variant")
        head = f"  {'metric':<26}" + "".join(f"{n:>14}" for n in names)
        others = [n for n in names if n != base]
        head += "".join(f"{'vs ' + base + ' (' + n + ')':>{max(20, len(base) + len(n) + 8)}}"
                        for n in others)
        lines.append(head)
        for k in keys:
            if not any(k in variants[n] for n in names):
                continue
            row = f"  {k:<26}" + "".join(f"{fmt(variants[n].get(k)):>14}" for n in names)
            b = variants[base].get(k)
            for n in others:
                v = variants[n].get(k)
                w = max(20, len(base) + len(n) + 8)
                if b and v is not None:
                    row += f"{(v - b) * 100.0 / b:>+{w - 1}.1f}%"
                else:
                    row += f"{'-':>{w}}"
            lines.append(row)
        lines.append("")
    return "\n".join(lines)


# apps (make bench-apps): each policy against the stock runs of its swap
# kind.
def apps_baseline(variant):
    return "zram-stock" if variant.startswith("zram-") else "stock"


def ab_comparisons(path):
    """The zswbctl ab comparisons of a log: {(group, kind): ({side letter:
    variant}, [the lines of ab's --csv], the primary metric ab judged by or
    None)}, from its "ABSIDES GROUP KIND L=VARIANT..." and "ABCSV GROUP
    KIND LINE" lines (apps: the group is the workload) and, between them,
    the "# primary: METRIC, at alpha A" line of ab's report, which follows
    "# zswbctl ab GROUP KIND: exit N" (bench_ab() in tools/bench/guest/
    lib.sh, tools/bench/apps/apps.sh)."""
    out = OrderedDict()
    cur, report = None, False
    for line in open(path, errors="replace", newline="\n"):
        line = line.rstrip("\r\n")
        if cur and line.startswith(f"# zswbctl ab {cur[0]} {cur[1]}: exit "):
            report = True
        elif report and line.startswith("# primary: "):
            out[cur][2] = line[len("# primary: "):].split(",")[0]
            report = False
        f = line.split(" ", 3)
        if len(f) < 4 or f[0] not in ("ABSIDES", "ABCSV"):
            continue
        key = (f[1], f[2])
        if f[0] == "ABSIDES":
            out[key] = [OrderedDict(w.split("=", 1) for w in f[3].split()), [], None]
            cur, report = key, False
        elif key in out:
            out[key][1].append(f[3])
    # The table's order, whichever VM ran which comparison first.
    order = {"build": 0, "redis": 1, "mariadb": 2, "heavy": 0, "light": 1,
             "disk": 0, "zram": 1, "file": 2}
    return OrderedDict(sorted(out.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][0],
                                                           order.get(kv[0][1], 9), kv[0][1])))


def ab_csv_name(bench, group, kind):
    """The file name of a comparison's runs beside the JSON."""
    return f"{bench}-{kind}.csv" if group == bench else f"{bench}-{group}-{kind}.csv"


def ab_group(bench, group, kind):
    """The name of a comparison in the JSON and the tables: the workload
    or case (apps, readahead, shrinker), or the swap kind where the
    benchmark has one comparison per kind (as prompt-free names it: disk
    async, zram sync)."""
    if group != bench:
        return group
    return PROMPT_FREE_KINDS.get(kind, kind) if bench == "prompt-free" else kind


def ab_key(bench, metric):
    """The JSON's name of one of ab's metrics, None for one it leaves out:
    apps keeps the command's own figures only, without "cmd."; the other
    benchmarks every metric, as ab names it."""
    if bench != "apps":
        return metric
    return metric[4:] if metric.startswith("cmd.") else None


def ab_report(lines, path, metric=None):
    """zswbctl ab's --json report of the runs of a --csv (its lines),
    written to path, by the zswbctl of this tree (made first: a no-op when
    it is up to date), with metric as the primary where the runs have it
    (ab's default without); None, after saying why, when ab cannot
    report."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    zswbctl = os.path.join(top, "tools", "zswbctl", "zswbctl")
    subprocess.run(["make", "-s", "-C", os.path.dirname(zswbctl), "zswbctl"], check=True,
                   stdout=subprocess.DEVNULL)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    cmd = [zswbctl, "ab", "--json", "--from-csv", path]
    if metric and metric in lines[0].split(","):
        cmd += ["--metric", metric]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print(f"report.py: {' '.join(cmd[1:])} exited {r.returncode}: "
              f"{r.stderr.strip()}", file=sys.stderr)
        return None
    return json.loads(r.stdout)


def ab_side(summary, letter):
    """Side letter's part of ab's report on one metric: A's median and
    range, or a later side's comparison with A."""
    return summary.get(letter.lower())


def ab_p(side):
    """The p-value ab judged side by: the primary metric's own, any other
    metric's adjusted (Benjamini-Hochberg)."""
    return side.get("p_value") if side.get("primary") else side.get("p_adjusted")


def from_ab(bench, comps, csv_dir):
    """{group: {variant: {key: median, ...}}} from zswbctl ab's reports
    of each comparison (ab_group(), ab_key()): each side's median over
    the pairs; for a side after A, "against" (A's variant) and ab's
    comparison with A in the same pairs: KEY_change_pct (the
    Hodges-Lehmann estimate as a % change of stock) and KEY_ci_pct (its
    interval, [low, high]), both None where stock's median is 0, then
    KEY_difference ([estimate, low, high] in the metric's units, on ab's
    difference scale only), KEY_p (ab_p()), KEY_differs (ab's verdict:
    None where it could not judge, too few pairs or none) and the verdict
    in words in "verdicts"; on side B, "primary", the key ab judged it by
    at alpha (every other key, and every key of a later side, is
    secondary), when that is one of the command's; with every run in
    "runs", in the order they ran."""
    meds = OrderedDict()
    for (group, kind), (sides, lines, primary) in comps.items():
        if not lines:
            print(f"report.py: {group} on {kind}: no runs (zswbctl ab wrote no CSV)",
                  file=sys.stderr)
            continue
        rep = ab_report(lines, os.path.join(csv_dir, ab_csv_name(bench, group, kind)),
                        primary)
        if rep is None:
            continue
        wl = ab_group(bench, group, kind)
        runs = OrderedDict((v, []) for v in sides.values())
        npairs = OrderedDict((v, 0) for v in sides.values())
        for r in rep["runs"]:
            if r["kind"] == "warmup" or r["side"] not in sides:
                continue
            v = sides[r["side"]]
            runs[v].append(OrderedDict((ab_key(bench, k), x) for k, x in r["metrics"].items()
                                       if ab_key(bench, k) and x is not None))
            npairs[v] += r["kind"] == "pair"
        for letter, v in sides.items():
            e = meds.setdefault(wl, OrderedDict()).setdefault(v, OrderedDict())
            verdicts = OrderedDict()
            for m, summ in rep["report"].items():
                side = ab_side(summ, letter)
                k = ab_key(bench, m)
                if not k or not side or side.get("median") is None:
                    continue
                e[k] = side["median"]
                if letter == "A":
                    continue
                e["against"], e["kind"] = sides["A"], kind
                e[f"{k}_change_pct"] = side.get("estimate")
                lo, hi = side.get("ci_low"), side.get("ci_high")
                e[f"{k}_ci_pct"] = [lo, hi] if lo is not None and hi is not None else None
                if side.get("scale") == "diff":
                    e[f"{k}_difference"] = side.get("difference")
                e[f"{k}_p"] = ab_p(side)
                judged = side.get("pairs") and not side.get("too_few")
                e[f"{k}_differs"] = side.get("differs") if judged else None
                verdicts[k] = side.get("verdict")
            e["iterations"] = npairs[v]
            if letter == "B" and ab_key(bench, rep.get("primary", "")):
                e["primary"] = ab_key(bench, rep["primary"])
            if verdicts:
                e["verdicts"] = verdicts
            keys = OrderedDict((k, None) for it in runs[v] for k in it)
            e["runs"] = OrderedDict((k, [it.get(k) for it in runs[v]]) for k in keys)
    return meds


def ab_change(vals, k):
    """ab's change of key k, as its table shows it: the % change and its
    interval, or the difference in the metric's units where stock's
    median is 0; "-" without either."""
    c, ci, d = vals.get(f"{k}_change_pct"), vals.get(f"{k}_ci_pct"), vals.get(f"{k}_difference")
    if c is not None and ci:
        return f"{c:+.1f}% [{ci[0]:+.1f}%, {ci[1]:+.1f}%]"
    if c is not None:
        return f"{c:+.1f}% [-]"  # too few pairs: ab gives no interval
    if d and None not in d:
        return f"{sfmt(d[0])} [{sfmt(d[1])}, {sfmt(d[2])}]"
    if d and d[0] is not None:
        return f"{sfmt(d[0])} [-]"
    return "-"


def sfmt(v):
    """A difference in a metric's units, signed: whole with thousands
    separators from 100 up, else 4 significant digits."""
    return f"{v:+,.0f}" if abs(v) >= 100 else f"{v:+.4g}"


def ab_pfmt(p):
    """A p-value in two digits, as zswbctl ab prints it."""
    if p is None:
        return "-"
    return f"{p:.1e}" if p < 0.0001 else f"{p:.2g}"


def ab_word(vals, k):
    """What ab found on key k, in a word or two."""
    if f"{k}_differs" not in vals:
        return ""
    d = vals[f"{k}_differs"]
    if d is None:
        return "no pair" if vals.get("verdicts", {}).get(k) == "no pair measured it" \
            else "too few pairs"
    if d:
        return "differs"
    return "the same" if vals.get("verdicts", {}).get(k, "").startswith("no difference: the same") \
        else "none detected"


def ab_tables(meds, keys):
    """Per group and side after A, a row per key of keys: the medians of
    A and of the side, ab's change with its interval, p and verdict."""
    lines = []
    for wl, variants in meds.items():
        for variant, vals in variants.items():
            base = vals.get("against")
            if not base or base not in variants:
                continue
            b = variants[base]
            lines.append(f"[{wl}] {variant} against {base} ({vals['kind']} swap), zswbctl ab: medians "
                         f"of {vals['iterations']} and {b['iterations']} runs in pairs; change: "
                         f"Hodges-Lehmann estimate over the pairs with its interval (a "
                         f"difference where stock's median is 0); p: Wilcoxon signed-rank, "
                         f"Benjamini-Hochberg adjusted"
                         + (f" but for {vals['primary']}, the primary metric"
                            if vals.get("primary") else ""))
            w = max(22, max(len(k) for k in keys) + 2)
            lines.append(f"  {'metric':<{w}}{'baseline':>14}{'policy':>14}  {'change [interval]':<30}"
                         f" {'p':>7}  ab")
            for k in keys:
                if k not in vals and k not in b:
                    continue
                bv, pv = b.get(k), vals.get(k)
                lines.append(f"  {k:<{w}}{fmt(bv):>14}{fmt(pv):>14}  {ab_change(vals, k):<30}"
                             f" {ab_pfmt(vals.get(f'{k}_p')):>7}  {ab_word(vals, k)}".rstrip())
            lines.append("")
    return "\n".join(lines)


def apps_summary(meds, keys):
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
            for k in keys:
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


# The compact table of results.rst, per workload: (key, column, scale).
APPS_COMPACT = {
    "build": (("build_s", "build s", 1), ("cpu_s", "cpu s", 1), ("psi_some_us", "PSI s", 1e-6),
              ("pgrotated", "pgrot", 1), ("pgscan", "pgscan", 1), ("pgsteal", "pgsteal", 1),
              ("zswpwb", "zswpwb", 1), ("swap_ra", "ra", 1), ("zswpin", "zswpin", 1),
              ("pswpin", "pswpin", 1)),
    "redis": (("rps", "GET/s", 1), ("p95_ms", "p95 ms", 1), ("p99_ms", "p99 ms", 1),
              ("load_s", "load s", 1), ("cpu_s", "cpu s", 1), ("psi_some_us", "PSI s", 1e-6),
              ("pgrotated", "pgrot", 1), ("pgscan", "pgscan", 1), ("pgsteal", "pgsteal", 1),
              ("zswpwb", "zswpwb", 1), ("pswpin", "pswpin", 1)),
    "mariadb": (("tps", "tx/s", 1), ("avg_ms", "avg ms", 1), ("p95_ms", "p95 ms", 1),
                ("cpu_s", "cpu s", 1), ("psi_some_us", "PSI s", 1e-6), ("pgrotated", "pgrot", 1),
                ("pgscan", "pgscan", 1), ("pgsteal", "pgsteal", 1), ("zswpwb", "zswpwb", 1),
                ("zswpin", "zswpin", 1), ("pswpin", "pswpin", 1)),
}


def compact_num(v):
    if v is None:
        return "-"
    if abs(v) >= 100 or abs(v - round(v)) < 1e-9:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def compact_pct(p):
    return f"{p:+.1f}%" if abs(p) < 10 else f"{p:+.0f}%"


def apps_compact(meds):
    """results.rst's table: per workload, each variant's medians; under a
    policy line ab's change against stock (its Hodges-Lehmann estimate),
    marked ~ where zswbctl ab detected no difference, ? where it had too
    few pairs to judge; "-" where stock's median is 0 (no % change)."""
    lines = []
    for wl, variants in meds.items():
        cols = APPS_COMPACT.get(wl)
        if not cols:
            continue
        lines.append(f"{wl:<18}" + "".join(f"{c:>8}" for _, c, _ in cols))
        for v, vals in variants.items():
            lines.append(f"{v:<18}" + "".join(
                f"{compact_num(vals[k] * sc if vals.get(k) is not None else None):>8}"
                for k, _, sc in cols))
            if v == apps_baseline(v):
                continue
            row = ""
            for k, _, _ in cols:
                c = vals.get(f"{k}_change_pct")
                if c is None:
                    row += f"{'-':>8}"
                    continue
                mark = {False: "~", None: "?"}.get(vals.get(f"{k}_differs"), " ")
                row += f"{compact_pct(c) + mark:>8}"
            lines.append(f"{'':<18}" + row)
        lines.append("")
    return "\n".join(lines)


def bench_list(bench, name):
    """The metrics of the line NAME="METRIC..." (BENCH_TABLE, BENCH_FIGURE)
    of tools/bench/config/BENCH.conf, taken as written (names between
    blanks, its lines joined where one ends in a backslash); None without
    the line."""
    try:
        with open(os.path.join(CONF_DIR, f"{bench}.conf")) as f:
            m = re.search(rf'^{name}="([^"]*)"', f.read(), re.M)
    except OSError:
        return None
    return m.group(1).replace("\\\n", " ").split() if m else None


def table_keys(bench, comps):
    """The keys of bench's tables (ab_key()): its BENCH_TABLE, or without
    one the primary metric of each comparison, then every metric of the
    command's own (cmd.*) that the comparisons measured."""
    metrics = bench_list(bench, "BENCH_TABLE")
    if metrics is None:
        metrics = [p for _, _, p in comps.values() if p]
        metrics += [m for _, lines, _ in comps.values() if lines
                    for m in lines[0].split(",") if m.startswith("cmd.")]
    keys = OrderedDict((ab_key(bench, m), None) for m in metrics if ab_key(bench, m))
    return list(keys)


def ab_main(bench, comps, out):
    """A benchmark that compares through zswbctl ab (comps: ab_comparisons()):
    its table and JSON, each comparison's runs kept beside the JSON as ab's
    CSV."""
    if out:
        csv_dir = os.path.dirname(out) or "."
        os.makedirs(csv_dir, exist_ok=True)
        meds = from_ab(bench, comps, csv_dir)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            meds = from_ab(bench, comps, tmp)
    print(f"== {title(bench)}")
    keys = table_keys(bench, comps)
    print(ab_tables(meds, keys))
    if bench == "apps":
        print(apps_summary(meds, keys))
        print(apps_compact(meds))
    if out:
        with open(out, "w") as f:
            json.dump(meds, f, indent=2)
            f.write("\n")
        print(f"wrote {out}")
    return 0


# figures: the pictures of Documentation/results.rst, from bench-results/.


def fig_latency(plt, data, path):
    """The free-latency histogram of each swap kind (prompt-free, on)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    drawn = False
    for group, variants in data.items():
        on = variants.get("on", {})
        bins = sorted((int(k[len(HIST_PREFIX):-2]), v) for k, v in on.items()
                      if k.startswith(HIST_PREFIX) and k.endswith("us")
                      and k[len(HIST_PREFIX):-2].isdigit())
        total = sum(v for _, v in bins)
        if not total:
            continue
        xs = [b for b, _ in bins]
        ax.step(xs, [100.0 * v / total for _, v in bins], where="pre", label=group)
        drawn = True
    if not drawn:
        plt.close(fig)
        return False
    ax.set_xscale("log", base=2)
    ax.set_xlabel("free latency: writeback end to free, us (bucket's upper bound)", fontsize=8)
    ax.set_ylabel("% of the folios freed", fontsize=8)
    ax.set_title("prompt-free: free latency with the policy on (each bucket: the median of the pairs)",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    return True


def fig_calls(plt, data, path):
    """shrink_memcg() calls per page written back, per case and policy."""
    key = "cmd.calls_per_written"
    cases = [c for c, v in data.items() if any(key in x for x in v.values())]
    if not cases:
        return False
    fig, axes = plt.subplots(1, len(cases), figsize=(3.4 * len(cases), 3.0), squeeze=False)
    for ax, case in zip(axes.flat, cases):
        pols = [p for p, x in data[case].items() if key in x]
        for i, p in enumerate(pols):
            x = data[case][p]
            ax.bar(i, x[key], color="tab:blue", alpha=0.5)
            ax.annotate(f"{x[key]:.3g}", (i, x[key]), ha="center", va="bottom", fontsize=7)
            pts = [v for v in x.get("runs", {}).get(key, []) if v is not None]
            ax.plot([i] * len(pts), pts, "o", ms=3, color="k")
        ax.set_yscale("log")
        ax.set_xticks(range(len(pols)))
        ax.set_xticklabels(pols, rotation=35, ha="right", fontsize=7)
        ax.set_title(case, fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
    axes.flat[0].set_ylabel("calls per page written back", fontsize=8)
    fig.suptitle("shrinker: shrink_memcg() calls per page written back (bars: medians, dots: "
                 "runs)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    return True


def figures(src, dst):
    """figures [RESULTS_DIR [OUT_DIR]]: the pictures of the comparisons
    and JSON in RESULTS_DIR (bench-results), into OUT_DIR
    (Documentation/figures)."""
    import os
    try:
        import matplotlib
    except ImportError:
        print("report.py: figures need matplotlib (Debian: python3-matplotlib)", file=sys.stderr)
        return 1
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.fonttype"] = "none"
    plt.rcParams["svg.hashsalt"] = "zswap_wb"
    os.makedirs(dst, exist_ok=True)
    out = []
    for conf in sorted(glob.glob(os.path.join(CONF_DIR, "*.conf"))):
        bench = os.path.basename(conf)[:-len(".conf")]
        if bench != "common":
            out += fig_ab(bench, src, dst)
    path = os.path.join(src, "prompt-free.json")
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
        if fig_latency(plt, data, os.path.join(dst, "free-latency.svg")):
            out.append("free-latency.svg")
    path = os.path.join(src, "shrinker.json")
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
        if fig_calls(plt, data, os.path.join(dst, "shrinker-calls.svg")):
            out.append("shrinker-calls.svg")
    if not out:
        print(f"report.py: no benchmark JSON in {src}", file=sys.stderr)
        return 1
    print(f"wrote {', '.join(out)} in {dst}")
    return 0


def json_primary(bench, data, group, kind, header):
    """The primary metric of the comparison (group, kind) of bench, as the
    header of its CSV names it: the "primary" of a side of its group in
    bench's JSON (data) on that swap kind, or on any where the JSON does
    not say the kind; None where the JSON has none."""
    for vals in data.get(ab_group(bench, group, kind), {}).values():
        if vals.get("primary") and vals.get("kind", kind) == kind:
            for m in header.split(","):
                if ab_key(bench, m) == vals["primary"]:
                    return m
    return None


def fig_ab(bench, src, dst):
    """An SVG per comparison of bench whose CSV has enough pairs for a
    verdict and whose primary metric bench's JSON names, drawn by
    zswbctl-plot from zswbctl ab's report on it: each pair's side/A as a
    point, the change with its 95% interval, the verdict in the title.
    The names of the files written."""
    import os
    import tempfile
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = []
    data = {}
    if os.path.exists(os.path.join(src, f"{bench}.json")):
        with open(os.path.join(src, f"{bench}.json")) as f:
            data = json.load(f)
    for csv_path in sorted(glob.glob(os.path.join(src, f"{bench}-*.csv"))):
        name = os.path.basename(csv_path)[:-4]
        base, _, tag = name.partition(".")
        parts = base[len(bench) + 1:].split("-")
        if len(parts) not in (1, 2):
            continue
        group, kind = (parts[0] if len(parts) == 2 else bench), parts[-1]
        with open(csv_path) as f:
            lines = f.read().splitlines()
        header = lines[0] if lines else ""
        primary = None
        if tag and group != bench:
            primary = json_primary(bench, data, f"{group}.{tag}", kind, header)
        primary = primary or json_primary(bench, data, group, kind, header)
        if not primary:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            rep = ab_report(lines, os.path.join(tmp, "runs.csv"), primary)
            if not rep or rep["pairs"] < 6:
                continue
            report = os.path.join(tmp, "report.json")
            with open(report, "w") as f:
                json.dump(rep, f)
            cmd = ["/usr/bin/python3", os.path.join(top, "tools", "zswbctl", "zswbctl-plot"),
                   "-m", rep["primary"]]
            for k in bench_list(bench, "BENCH_FIGURE") or ():
                if k in rep["report"]:
                    cmd += ["-m", k]
            cmd += ["-o", os.path.join(dst, f"{name}.svg"), report]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                print(f"report.py: zswbctl-plot on {csv_path} exited {r.returncode}: "
                      f"{r.stderr.strip()}", file=sys.stderr)
                continue
        out.append(f"{name}.svg")
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "figures":
        args = sys.argv[2:] + ["bench-results", "Documentation/figures"][len(sys.argv[2:]):]
        return figures(args[0], args[1])
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    bench, log = sys.argv[1], sys.argv[2]
    comps = ab_comparisons(log)
    if comps:
        return ab_main(bench, comps, sys.argv[3] if len(sys.argv) > 3 else None)
    runs = parse(results(log))
    if not runs:
        print(f"report.py: no zswbctl ab comparison (ABSIDES) nor RESULT line in {log}",
              file=sys.stderr)
        return 1
    meds = medians(runs)
    keys = []
    for variants in meds.values():
        for vals in variants.values():
            for k in vals:
                if k not in keys and k != "iterations" and not k.startswith(HIST_PREFIX):
                    keys.append(k)
    print(f"== {title(bench)}")
    print(table(meds, keys))
    add_runs(meds, runs)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(meds, f, indent=2)
            f.write("\n")
        print(f"wrote {sys.argv[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
