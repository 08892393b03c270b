#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count KTAP results:
  ktap.py [--write-manifest|--names] [--manifest FILE] [--boot NAME] [--console LOG] DIR...

Each DIR/ktap/<name>.tap (with <name>.rc) is one kselftest program's output;
every top-level "ok"/"not ok" line is one test case. A program that exited
non-zero without a failing case, or reported fewer or more cases than it
planned, counts one failure more. Every "not ok" is a failure, with or
without a SKIP or XFAIL directive; an "ok ... # XFAIL" is a skip, not a
pass.
--console also reads the KUnit suites from a kernel log (the guest's final
dmesg). Prints one line per case and a JSON summary on the last line; exits
1 when a case failed (and without a summary on a bad manifest or any other
error), 0 otherwise. A caller must check both the status and the summary.

--manifest holds the results against what boot NAME must show: every
program and KUnit suite listed for it ran, with exactly its number of
cases and the same case names in the same order, skipping only cases that
match one of its skip patterns; anything not listed is a failure too.
--write-manifest prints a boot's entries from a run instead (for a
maintainer to review when a test is added); --names prints each program's
digest and the case names it was computed from.

Manifest lines: BOOT PROGRAM CASES names=DIGEST [SKIP-REGEX...],
shell-quoted; PROGRAM is a result file's name (run-tests.sh names it) or
kunit:SUITE; DIGEST the first 16 hex digits of the SHA-256 of the case
names (each case's description without its directive, as in --names), one
a line, in order; a skip regex must match the whole case description.
"""
import glob
import hashlib
import json
import os
import re
import shlex
import sys

RESULT = re.compile(r"^(not ok|ok) (\d+)\s*(?:- )?(.*?)\s*(#\s*(SKIP|skip|XFAIL|xfail).*)?$")
PLAN = re.compile(r"^1\.\.(\d+)")
STAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
# a failed case's reason, as much as CI's tail of the log can carry
WHY_LINES = 3
WHY_CHARS = 400


def case_kind(m):
    """pass, fail or skip for a RESULT match. Every "not ok" is a failure,
    whatever its directive: upstream's ksft.py prints "not ok ... # SKIP"
    for a case whose checks failed before it skipped. An "ok" XFAIL is a
    skip, not a pass (a feature the device lacks), so the manifest must
    allow it."""
    if m.group(1) == "not ok":
        return "fail"
    return "skip" if m.group(4) else "pass"


def parse(lines, label):
    """Cases as (kind, "label: description", why): why is, for a failed
    case, the last diagnostic lines the program printed before it."""
    cases, plan, diag = [], None, []
    for line in lines:
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            if "# SKIP" in line:
                cases.append(("skip", label + ": " + line.split("# SKIP", 1)[1].strip(), ""))
            continue
        m = RESULT.match(line)
        if m:
            kind = case_kind(m)
            why = " | ".join(diag[-WHY_LINES:]) if kind == "fail" else ""
            cases.append((kind, "%s: %s" % (label, m.group(3)), why[-WHY_CHARS:]))
            diag = []
        elif line.startswith("# "):
            diag.append(line[2:].strip())
    return cases, plan


def kunit(text):
    """KUnit prints one KTAP document at boot: suites at the top level, their
    cases indented by four spaces. Each case is one test; a suite whose plan
    is not met, or a plan of suites not met, is one failure."""
    if "KTAP version 1" not in text:
        return []
    text = text[text.index("KTAP version 1"):]
    cases, suite, plans, seen, top_plan, top_seen = [], "?", {}, {}, None, 0
    for line in text:
        if line.startswith("    # Subtest: "):
            suite = line.split(": ", 1)[1].strip()
            continue
        if line.startswith("    1..") and suite not in plans:
            plans[suite] = int(line[7:].split()[0])
            continue
        if top_plan is None and PLAN.match(line):
            top_plan = int(PLAN.match(line).group(1))
            continue
        if line.startswith("    ") and not line.startswith("     "):
            m = RESULT.match(line[4:])
            if m:
                kind = case_kind(m)
                cases.append((kind, "kunit %s: %s" % (suite, m.group(3))))
                seen[suite] = seen.get(suite, 0) + 1
            continue
        m = RESULT.match(line)
        if m:
            top_seen += 1
            if m.group(1) == "not ok" and not seen.get(m.group(3)):
                cases.append(("fail", "kunit suite %s" % m.group(3)))
    for s, n in plans.items():
        if seen.get(s, 0) < n:
            cases.append(("fail", "kunit %s: %d of %d cases reported" % (s, seen.get(s, 0), n)))
    if top_plan is not None and top_seen < top_plan:
        cases.append(("fail", "kunit: %d of %d suites reported" % (top_seen, top_plan)))
    return cases


def names_digest(cases):
    """the manifest's digest of a program's case names, in order"""
    text = "".join(what + "\n" for _, what in cases)
    return "names=" + hashlib.sha256(text.encode()).hexdigest()[:16]


def manifest_entry(words, where):
    """(cases, digest, [skip regexes]) from one line's words; exits on a
    malformed line"""
    if len(words) < 4 or not words[2].isdigit() or \
            not re.fullmatch(r"names=[0-9a-f]{16}", words[3]):
        sys.exit("%s: want BOOT PROGRAM CASES names=DIGEST [SKIP...]" % where)
    try:
        return int(words[2]), words[3], [re.compile(r) for r in words[4:]]
    except re.error as e:
        sys.exit("%s: bad skip regex: %s" % (where, e))


def read_manifest(path, boot):
    """{program: (cases, digest, [skip regexes])} for one boot; exits on
    any line it cannot read, whichever boot it is for"""
    want = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            where = "%s:%d" % (path, n)
            try:
                words = shlex.split(line, comments=True)
            except ValueError as e:
                sys.exit("%s: %s" % (where, e))
            if not words:
                continue
            entry = manifest_entry(words, where)
            if words[0] != boot:
                continue
            if words[1] in want:
                sys.exit("%s: %s listed twice for %s" % (where, words[1], boot))
            want[words[1]] = entry
    return want


def check_manifest(want, got):
    """got: {program: [(kind, description)]}; failures as cases"""
    bad = []
    for prog in sorted(set(want) | set(got)):
        if prog not in want:
            bad.append(("fail", "%s: ran, but the manifest does not list it" % prog))
            continue
        n, digest, skips = want[prog]
        cases = got.get(prog, [])
        if not cases:
            bad.append(("fail", "%s: did not run (the manifest wants %d cases)" % (prog, n)))
            continue
        if len(cases) != n:
            bad.append(("fail", "%s: %d cases, the manifest wants %d" % (prog, len(cases), n)))
        elif names_digest(cases) != digest:
            bad.append(("fail", "%s: other case names than the manifest's: %s here, %s there"
                        " (ktap.py --names lists them)" % (prog, names_digest(cases), digest)))
        for kind, what in cases:
            if kind == "skip" and not any(r.fullmatch(what) for r in skips):
                bad.append(("fail", "%s: skipped, and the manifest allows no such skip: %s"
                            % (prog, what)))
    return bad


def write_manifest(boot, got):
    for prog in sorted(got):
        skips = [re.escape(w) for k, w in got[prog] if k == "skip"]
        words = [boot, prog, str(len(got[prog])), names_digest(got[prog])] + skips
        print(" ".join(shlex.quote(w) for w in words))


def print_names(got):
    for prog in sorted(got):
        print("%s %s" % (shlex.quote(prog), names_digest(got[prog])))
        for _, what in got[prog]:
            print("    " + what)


def main():
    args = sys.argv[1:]
    cases = []
    got = {}
    manifest = boot = None
    write = names = False
    if args[:1] == ["--write-manifest"]:
        write, args = True, args[1:]
    if args[:1] == ["--names"]:
        names, args = True, args[1:]
    if args[:1] == ["--manifest"]:
        manifest, args = args[1], args[2:]
    if args[:1] == ["--boot"]:
        boot, args = args[1], args[2:]
    if args[:1] == ["--console"]:
        log, args = args[1], args[2:]
        if os.path.exists(log):
            with open(log, errors="replace") as f:
                k = kunit([STAMP.sub("", l.rstrip("\n")) for l in f])
            cases += k
            for kind, what in k:
                m = re.match(r"kunit (\S+): (.*)", what)
                if m:
                    got.setdefault("kunit:" + m.group(1), []).append((kind, m.group(2)))
    for d in args:
        for tap in sorted(glob.glob(os.path.join(d, "ktap", "*.tap"))):
            name = os.path.basename(tap)[:-4]
            with open(tap, errors="replace") as f:
                c3, plan = parse([l.rstrip("\n") for l in f], name)
            rcf = tap[:-4] + ".rc"
            rc = int(open(rcf).read().strip() or 1) if os.path.exists(rcf) else 1
            got[name] = [(k, w.split(": ", 1)[1]) for k, w, _ in c3]
            c = [(k, w + (" -- " + why if why else "")) for k, w, why in c3]
            if plan is not None and plan > 0 and len(c) < plan:
                c.append(("fail", "%s: %d of %d planned cases reported" % (name, len(c), plan)))
            if plan is not None and len(c3) > max(plan, 1):
                c.append(("fail", "%s: %d cases reported, %d planned" % (name, len(c3), plan)))
            if rc not in (0, 4) and not any(k == "fail" for k, _ in c):
                c.append(("fail", "%s: exited %d" % (name, rc)))
            if not c:
                c.append(("fail", "%s: no KTAP results" % name))
            cases += c
    if write:
        write_manifest(boot, got)
        return 0
    if names:
        print_names(got)
        return 0
    if manifest:
        cases += check_manifest(read_manifest(manifest, boot), got)
    summary = {k: sum(1 for c in cases if c[0] == k) for k in ("pass", "fail", "skip")}
    for kind, what in cases:
        print("%-4s %s" % (kind, what))
    print(json.dumps(summary))
    return 1 if summary["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
