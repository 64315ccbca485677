# SPDX-License-Identifier: GPL-2.0
# Validate Prometheus text format on stdin; on success print every sample
# as "name{labels} value", else the reasons on stderr and exit 1.
import math, re, sys
from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
bad = []
name_re = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
sample_re = re.compile(r"^(%s)(\{[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\n]|\\[\\\"n])*\""
                       r"(?:,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\n]|\\[\\\"n])*\")*\})? (\S+)$"
                       % name_re)
helped, typed, fam, ftype = set(), {}, None, None
if not text.endswith("\n"):
    bad.append("no final newline")
for n, line in enumerate(text.split("\n")[:-1], 1):
    if line.startswith("# HELP "):
        parts = line.split(" ", 3)
        if len(parts) < 4 or not parts[3].strip() or parts[2] in helped:
            bad.append("%d: HELP empty or repeated" % n)
        helped.add(parts[2])
    elif line.startswith("# TYPE "):
        parts = line.split(" ")
        if (len(parts) != 4 or parts[3] not in ("counter", "gauge", "histogram")
                or parts[2] in typed or parts[2] not in helped):
            bad.append("%d: bad TYPE, or one without HELP: %s" % (n, line))
        fam, ftype = parts[2], parts[3]
        typed[fam] = ftype
    else:
        m = sample_re.match(line)
        if not m:
            bad.append("%d: not a sample: %r" % (n, line))
            continue
        names = [fam + s for s in ("_bucket", "_count", "_sum")] if ftype == "histogram" else [fam]
        if m.group(1) not in names:
            bad.append("%d: %s is not in family %s" % (n, m.group(1), fam))
        if not m.group(1).startswith("zswap_wb_"):
            bad.append("%d: %s lacks the zswap_wb_ prefix" % (n, m.group(1)))
        try:
            float(m.group(3))
        except ValueError:
            bad.append("%d: bad value %r" % (n, m.group(3)))
try:
    fams = list(text_string_to_metric_families(text))
except Exception as e:
    fams = []
    bad.append("parser: %s" % e)
dump = []
for f in fams:
    if f.type not in ("counter", "gauge", "histogram") or not f.documentation:
        bad.append("%s: type %s, help %r" % (f.name, f.type, f.documentation))
    if f.type == "counter" and not all(s.name.endswith("_total") and s.value >= 0
                                       for s in f.samples):
        bad.append("%s: counter sample not _total or negative" % f.name)
    if f.type == "histogram":
        b = [s for s in f.samples if s.name == f.name + "_bucket"]
        c = [s.value for s in f.samples if s.name == f.name + "_count"]
        les = [float(s.labels.get("le", "nan")) for s in b]
        vals = [s.value for s in b]
        if (not b or les != sorted(les) or len(set(les)) != len(les) or les[-1] != math.inf
                or vals != sorted(vals) or c != [vals[-1]]):
            bad.append("%s: buckets not cumulative, +Inf missing or != _count" % f.name)
    for s in f.samples:
        labels = ",".join('%s="%s"' % kv for kv in sorted(s.labels.items()))
        dump.append("%s%s %r" % (s.name, "{%s}" % labels if labels else "", s.value))
if bad:
    sys.stderr.write("\n".join(bad) + "\n")
    sys.exit(1)
print("\n".join(dump))
