#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# results_claims.py ZSWBCTL: every change with its interval that
# Documentation/results.rst quotes in a table, and README.md's headline,
# is one that "ZSWBCTL ab --from-csv CSV --all" prints on a CSV the text
# names. KTAP on stdout, a test per table: results.rst line N (the line
# that ends in "::") and the CSVs named in the text since the previous
# table, up to and with that line (bench-results/NAME.csv, NAME.csv, or
# bench-results/NAME-{a,b}.csv for several); then one for the intervals
# of the text between the tables, and one for README's headline.
import os
import re
import subprocess
import sys

CHANGE = re.compile(r"([+-]?\d+(?:\.\d+)?%) \[([+-]?\d+(?:\.\d+)?%), ([+-]?\d+(?:\.\d+)?%)\]")
CSV = re.compile(r"(?:bench-results/)?([a-z0-9][a-z0-9._-]*(?:\{[a-z0-9_,]+\})?[a-z0-9._-]*\.csv)")
zswbctl = sys.argv[1]
ab_text = {}


def norm(change):
    """A change and its interval as ab prints them, "-100%" as "-100.0%"."""
    return tuple(re.sub(r"^([+-]?\d+)%$", r"\1.0%", x) for x in change)


def ab_changes(csv):
    """The changes with their intervals that ab prints on bench-results/csv,
    or None if it has no such file or ab refuses it."""
    if csv not in ab_text:
        path = os.path.join("bench-results", csv)
        r = subprocess.run([zswbctl, "ab", "--from-csv", path, "--all"],
                           capture_output=True, text=True) if os.path.exists(path) else None
        ab_text[csv] = r.stdout if r and r.returncode == 0 else None
    t = ab_text[csv]
    return None if t is None else {norm(m.groups()) for m in CHANGE.finditer(t)}


def named(text):
    """The CSVs text names, braces expanded."""
    out = []
    for m in CSV.finditer(text.replace("`", "")):
        n = m.group(1)
        b = re.search(r"\{([^}]*)\}", n)
        out += [n[:b.start()] + a + n[b.end():] for a in b.group(1).split(",")] if b else [n]
    return out


def tables(lines):
    """(line of "::", CSVs named before it, [(line, text)] of the block)."""
    since = 0
    i = 0
    while i < len(lines):
        if lines[i].endswith("::"):
            at, csvs = i + 1, list(dict.fromkeys(named(" ".join(lines[since:i + 1]))))
            block = []
            i += 1
            while i < len(lines) and (not lines[i] or lines[i].startswith(" ")):
                block.append((i + 1, lines[i]))
                i += 1
            since = i
            yield at, csvs, block
            continue
        i += 1


tests = []
with open("Documentation/results.rst") as f:
    lines = f.read().split("\n")
for at, csvs, block in tables(lines):
    quoted = [(n, m) for n, l in block for m in CHANGE.finditer(l)]
    if not quoted:
        continue
    bad = []
    have = [ab_changes(c) for c in csvs]
    if not csvs or None in have:
        bad.append(f"names no CSV that ab reads: {csvs}")
    for n, m in quoted:
        if not any(h and norm(m.groups()) in h for h in have):
            bad.append(f"line {n}: {m.group(0)} is not ab's")
    tests.append((f"results.rst line {at}: {len(quoted)} changes from {', '.join(csvs) or 'no CSV'}", bad))

# The text between the tables quotes intervals too ("carry 16.0% fewer
# [12.8%, 21.1%]"), in words that turn the sign: each must be one that ab
# prints on a committed CSV, as printed or negated.
INTERVAL = re.compile(r"\[([+-]?\d+(?:\.\d+)?)%, ([+-]?\d+(?:\.\d+)?)%\]")
printed = set()
for csv in sorted(os.listdir("bench-results")):
    if csv.endswith(".csv") and ab_changes(csv) is not None:
        for m in INTERVAL.finditer(ab_text[csv]):
            lo, hi = float(m.group(1)), float(m.group(2))
            printed |= {(lo, hi), (-hi, -lo)}
in_table = set(n for _, _, block in tables(lines) for n, _ in block)
bad = [f"line {n}: {m.group(0)} is not ab's on any CSV"
       for n, l in enumerate(lines, 1) if n not in in_table
       for m in INTERVAL.finditer(l)
       if (float(m.group(1)), float(m.group(2))) not in printed]
quoted = sum(len(INTERVAL.findall(l)) for n, l in enumerate(lines, 1) if n not in in_table)
tests.append((f"results.rst's text: {quoted} intervals, each ab's on a committed CSV", bad))

# README's headline: "**N% less time on disk swap [LO%, HI%]** (p = P,
# `bench-results/CSV`)", ab's primary line on CSV as -N% [-HI%, -LO%], p.
with open("README.md") as f:
    readme = f.read().replace("\n", " ")
m = re.search(r"\*\*(\d+\.\d+)% less time on disk swap \[(\d+\.\d+)%, (\d+\.\d+)%\]\*\* "
              r"\(p = ([0-9.]+), `bench-results/([a-z0-9.-]+\.csv)`\)", readme)
bad = []
if not m:
    bad.append("no headline of the form '**N% less time on disk swap [LO%, HI%]** (p = P, `bench-results/CSV`)'")
else:
    n, lo, hi, p, csv = m.groups()
    ab_changes(csv)
    want = rf"^wall_s +\S+ +\S+ +-{re.escape(n)}% \[-{re.escape(hi)}%, -{re.escape(lo)}%\] +{re.escape(p)} "
    if not ab_text[csv] or not re.search(want, ab_text[csv], re.M):
        bad.append(f"ab on {csv} does not give wall_s -{n}% [-{hi}%, -{lo}%], p {p}")
tests.append(("README.md's headline is ab's primary line on its CSV", bad))

print("TAP version 13")
print(f"1..{len(tests)}")
for i, (desc, bad) in enumerate(tests, 1):
    for b in bad:
        print(f"# {b}")
    print(f"{'not ok' if bad else 'ok'} {i} {desc}")
sys.exit(1 if any(b for _, b in tests) else 0)
