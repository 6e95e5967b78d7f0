#!/usr/bin/env python3
"""Job-interrupting failures per device-hour, per device generation, from the published counts.

Usage: scripts/fit_failure_rate.py [--check]
  --check  exit 1 when a system preset's operations.failures_per_device_hour differs from the rate
           of its generation printed here (the rate of the reviewed paper where two statements
           describe one run).

The whole-run model (core/run/run.h) charges each failure a restart plus the work since the last
checkpoint, at a rate per device-hour scaled by the job's device count. The rate is read off the
runs that publish an interruption count (tests/validation/data/reliability.csv): the count over
(days x 24 h x devices). Nothing here is fitted on the whole-run rows' elapsed times.

  Llama 3 405B pre-training (arXiv 2407.21783, Sec. 3.3.4, Table 5): 419 unexpected interruptions
    in a 54-day snapshot on up to 16,384 H100 (the 47 planned ones are maintenance the job chose).
  OPT-175B paper (arXiv 2205.01068, Sec. 2.5): at least 35 manual and an estimated 70+ automatic
    restarts, all from hardware failures, over about 2 months (60 days) on 992 A100-80GB.
  OPT-175B chronicles (metaseq projects/OPT/chronicles): ~90 restarts over the lineage of the final
    model, about 70 days on 1,024 A100-80GB. The same run as the paper, counted another way: it
    checks the paper's rate, it is not a second fleet.

Each generation's rate is the reviewed paper's (the chronicles would count the OPT run twice).
Left out: each statement predicted by the rate of the other statements of its generation, and,
where a generation has no other, by the other generation's rate (what a user of a device no run
has published gets), printed with the error in interruptions over the run's device-hours. The
highest rate of any statement (OPT-175B's paper, 7.35e-5) is the high end of the band of a run
whose system states no rate (core/run/run.h, kHighestPublishedFailuresPerDeviceHour).
"""
import csv
import json
import pathlib
import sys

from fitlib import ScriptParser

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "validation" / "data"

# (generation, the reliability.csv row's source prefix, interruptions, days, devices, reviewed)
STATEMENTS = [
    ("H100", "Llama 3 405B pre-training", 419, 54, 16384, True),
    ("A100", "OPT-175B pre-training (Meta, 2022) - paper", 105, 60, 992, True),
    ("A100", "OPT-175B chronicles", 90, 70, 1024, False),
]
# The system presets by generation (their device's).
PRESETS = {
    "H100": ["dgx-h100", "dgx-h200", "hgx-h800", "dgx-b200", "dgx-b300", "gb200-nvl72", "gb300-nvl72",
             "mi300x-8", "mi325x-8", "mi355x-8"],
    "A100": ["dgx-a100-40gb", "dgx-a100-80gb", "jean-zay-a100", "aws-p4d", "dgx-2"],
}


def rate(count, days, devices):
    return count / (days * 24.0 * devices)


def main():
    ap = ScriptParser(__doc__, cli=False)
    ap.add_argument("--check", action="store_true", help="exit 1 when a system preset's rate differs")
    check = ap.parse_args().check
    sources = [row["source"] for row in csv.DictReader(open(DATA / "reliability.csv", newline=""))]
    for _, prefix, *_ in STATEMENTS:
        if not any(s.startswith(prefix) for s in sources):
            sys.exit(f"reliability.csv has no row '{prefix}...'")
    fitted = {g: rate(c, d, n) for g, _, c, d, n, reviewed in STATEMENTS if reviewed}
    print("failures per device-hour, each statement (count / (days x 24 h x devices)):")
    for g, prefix, c, d, n, reviewed in STATEMENTS:
        print(f"  {g}  {prefix:45s} {c:4d} in {d:3d} d on {n:6d}: {rate(c, d, n):.3e}"
              + ("" if reviewed else "  (same run as the paper: a check)"))
    print("\nfitted per generation (the reviewed paper's):")
    for g, v in fitted.items():
        print(f"  {g}: {v:.3e} per device-hour = {v * 24 * 1000:.2f} per 1,000 device-days")
    print(f"highest published: {max(rate(c, d, n) for _, _, c, d, n, _ in STATEMENTS):.3e}")
    print("\neach statement left out (predicted by the others of its generation, else the other "
          "generation's rate):")
    errors = []
    for i, (g, prefix, c, d, n, _) in enumerate(STATEMENTS):
        same = [(cc, dd, nn) for j, (gg, _, cc, dd, nn, _) in enumerate(STATEMENTS) if j != i and gg == g]
        if same:
            held = sum(x[0] for x in same) / sum(x[1] * 24.0 * x[2] for x in same)
            how = f"{g}, other statements"
        else:
            other = [v for gg, v in fitted.items() if gg != g]
            held = other[0]
            how = f"the other generation's {next(gg for gg in fitted if gg != g)}"
        predicted = held * d * 24.0 * n
        err = predicted / c - 1
        errors.append(abs(err))
        print(f"  {prefix:45s} rate {held:.3e} ({how}): {predicted:7.0f} interruptions "
              f"for {c} stated, {100 * err:+.0f}%")
    print(f"  mean |error| left out: {100 * sum(errors) / len(errors):.0f}% "
          f"(3 statements; 2 runs, 2 fleets: too few to fit one rate across generations)")
    if check:
        bad = []
        for g, ids in PRESETS.items():
            want = round(fitted[g], 8)
            for p in ids:
                ops = json.load(open(ROOT / "presets" / "systems" / f"{p}.json")).get("operations", {})
                have = ops.get("failures_per_device_hour")
                if have is None or abs(have / want - 1) > 2e-3:
                    bad.append(f"{p}: {have} (want {want:.4g})")
        if bad:
            sys.exit("presets differ: " + "; ".join(bad))
        print("\npresets agree")


if __name__ == "__main__":
    main()
