#!/usr/bin/env python3
"""throw_cost.py PLAIN HOOKED [ITERATIONS] — issue 16 (1): a C++ throw and catch
with postmortem's __cxa_throw hook (type, what() and backtrace kept per
throw) beside the same program without it, at three stack depths.  Each
program prints the median of seven rounds; the two run in turn five times
and the fastest run counts, so that other load on the machine (which only
ever slows a run down) weighs on neither side more than the other."""
import subprocess
import sys


def run(exe, iterations):
    out = subprocess.run([exe, iterations], check=True, capture_output=True, text=True).stdout
    return {int(d): float(ns) for d, ns in (line.split() for line in out.splitlines())}


def main():
    plain_exe, hooked_exe = sys.argv[1], sys.argv[2]
    iterations = sys.argv[3] if len(sys.argv) > 3 else "20000"
    plain, hooked = {}, {}
    for _ in range(5):
        for best, exe in ((plain, plain_exe), (hooked, hooked_exe)):
            for depth, ns in run(exe, iterations).items():
                best[depth] = min(ns, best.get(depth, ns))
    print("C++ throw + catch, ns per throw (fastest of 5 runs, each the median of 7 rounds of %s)" % iterations)
    print("%-14s %12s %16s %8s" % ("stack depth", "plain throw", "with postmortem", "ratio"))
    for depth in sorted(plain):
        print("%-14d %12.0f %16.0f %7.2fx" % (depth, plain[depth], hooked[depth], hooked[depth] / plain[depth]))


if __name__ == "__main__":
    main()
