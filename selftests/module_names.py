#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Print what zswap_wb's debugfs "schema" holds, read from the module's
sources instead of a running module: a "stat" line for each row of
module/zswap_wb_stats.h and a "param" line for each parameter of each
family, in the module's order and format (Documentation/zswap_wb.rst).

For the host tests: selftests/run.sh compares the names with the
documents, selftests/zswbctl/test.sh gives zswbctl this schema in its fake
tree. It reads the sources as they are written (the row macros, the
struct zswb_param initializers, the name lists); a line it cannot read
is an error, so that a change of form fails the tests instead of
dropping a name.

    module_names.py [MODULE_DIR]
"""
import os
import re
import sys

STRING = r'"(?:[^"\\]|\\.)*"'


def die(msg):
    sys.exit("module_names.py: " + msg)


def strings(expr, defines):
    """The C string of @expr: literals and macros naming literals, concatenated."""
    out = ""
    for lit, name in re.findall(r'(%s)|(\w+)' % STRING, expr):
        if lit:
            out += bytes(lit[1:-1], "utf-8").decode("unicode_escape")
        elif name in defines:
            out += strings(defines[name], defines)
        else:
            die("%s is not a string macro" % name)
    return out


def read_sources(moddir):
    src = {}
    for f in sorted(os.listdir(moddir)):
        if f.endswith((".c", ".h")) and not f.endswith(".mod.c"):
            with open(os.path.join(moddir, f)) as fh:
                src[f] = fh.read()
    return src


def macro_defines(text):
    """Object-like #defines of one line: name -> body."""
    return dict(re.findall(r'^#define\s+(\w+)\s+(.+?)\s*$', text, re.M))


def stat_lines(text):
    defines = macro_defines(text)
    rows = re.finditer(r'^ZSWB_(COUNTER|NODE_COUNTER|GAUGE|PERCENTILE)\((.*?)\)\s*$',
                       text, re.M | re.S)
    out = []
    for row in rows:
        kind, args = row.group(1), row.group(2)
        m = re.match(r'\s*(?:([A-Z0-9_]+),\s*)?([a-z0-9_]+),\s*(?:(\d+),\s*)?(.*)$',
                     args, re.S)
        if not m:
            die("cannot read the row ZSWB_%s(%s)" % (kind, args))
        name, help_ = m.group(2), strings(m.group(4), defines)
        if kind == "NODE_COUNTER":
            name += "_node<N>"
        out.append("stat\t%s\t%s\t%s\t%s" % (
            name, "counter" if kind.endswith("COUNTER") else "gauge",
            "us" if kind == "PERCENTILE" else "-", help_))
    if not out:
        die("no row in zswap_wb_stats.h")
    return out


def choice_names(text, array):
    """The names of @array, "= LIST;" where LIST is a {...} list of row macros."""
    m = re.search(r'\b%s\[\]\s*=\s*(\w+);' % array, text)
    if not m:
        die("no name list %s" % array)
    body = re.search(r'#define\s+%s\s*\{(.*?)\n\}' % m.group(1), text, re.S)
    if not body:
        die("no rows for %s" % m.group(1))
    return re.findall(r'\w+\(\s*(\w+)\s*,', body.group(1))


def param_lines(src):
    text = "\n".join(src.values())
    defines = macro_defines(text)
    words = re.search(r'zswb_bool_words\[\]\s*=\s*\{(.*?)\};', text, re.S)
    if not words:
        die("no zswb_bool_words[]")
    bool_words = re.findall(r'"([^"]*)"', words.group(1))
    families = re.search(r'zswb_families\[\]\s*=\s*\{(.*?)\};', text, re.S)
    if not families:
        die("no zswb_families[]")
    declared = set(re.findall(r'^module_param_cb\((\w+),', text, re.M))
    out, listed = [], set()
    for family in re.findall(r'&(\w+)', families.group(1)):
        fam = re.search(r'struct zswb_family %s = \{(.*?)\};' % family, text, re.S)
        plist = fam and re.search(r'\.params\s*=\s*(\w+)', fam.group(1))
        params = plist and re.search(r'%s\[\]\s*=\s*\{(.*?)\};' % plist.group(1), text, re.S)
        if not params:
            die("cannot read the parameters of %s" % family)
        for desc in re.findall(r'&(\w+)', params.group(1)):
            d = re.search(r'struct zswb_param %s = \{(.*?)\};' % desc, text, re.S)
            if not d:
                die("no struct zswb_param %s" % desc)
            f = dict(re.findall(r'\.(\w+)\s*=\s*([^,\n]+),', d.group(1) + ","))
            name = strings(f["name"], defines)
            kind = f["kind"].strip().replace("ZSWB_PARAM_", "").lower()
            deflt = f.get("def", "0").strip()
            deflt = defines.get(deflt, deflt)
            if kind == "bool":
                values, deflt = " ".join(bool_words), "Y" if int(deflt) else "N"
            elif kind == "uint":
                values = "%s..%s" % (f["min"].strip(), f["max"].strip())
            elif kind == "choice":
                names = choice_names(text, f["names"].strip())
                values, deflt = " ".join(names), names[int(deflt)]
            else:
                die("%s: kind %s" % (name, kind))
            flags = [fl for fl, bit in (("drains", "ZSWB_PARAM_DRAINS"),
                                        ("waits", "ZSWB_PARAM_WAITS"))
                     if bit in f.get("flags", "")]
            out.append("param\t%s\t%s\t%s\t%s\t%s\t%s" % (
                name, kind, values, deflt, ",".join(flags) or "-",
                strings(f["help"], defines)))
            listed.add(name)
    if listed != declared:
        die("declared %s, described %s" % (sorted(declared), sorted(listed)))
    return out


def main():
    moddir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "module")
    src = read_sources(moddir)
    if "zswap_wb_stats.h" not in src:
        die("no zswap_wb_stats.h in %s" % moddir)
    for line in stat_lines(src["zswap_wb_stats.h"]) + param_lines(src):
        print(line)


main()
