#!/usr/bin/env python3
"""Fit a software profile's training_matmul_share on the published runs of that stack.

Usage: scripts/fit_stack_rate.py [--cli PATH] PROFILE FIT_FILE[:GROUP] [CHECK_FILE[:GROUP] ...]

training_matmul_share is the share of the device's calibrated matmul rate that a stack's kernels reach
(core/hardware/spec.h, SoftwareDefaults). Every row of FIT_FILE (tests/validation/data/, only the
rows whose group starts with GROUP when given) that names PROFILE is predicted with the profile
inlined and the share set to each grid value; the mean |error| per value is printed and the value
with the least mean |error| (ties: the larger share) is reported. The CHECK files are predicted at
the fitted value and at 1, out of sample. The FIT_FILE rows are also reported per source (their
`group`), each predicted with the share fitted on the other sources' rows alone (fitlib.loso); a
profile fitted on a single source has nothing left to fit on, and its left-out column is the
share of 1 (the profile without the fit).
"""
import json
import sys

from fitlib import DATA, ScriptParser, loso_grid, metric, print_loso, run


def rows_of(spec, profile):
    name, _, group = spec.partition(":")
    out = []
    for line in open(DATA / name):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["scenario"].get("software") != profile or not r["group"].startswith(group):
            continue
        out.append(r)
    return out


def error(cli, profile_json, row, share):
    scenario = json.loads(json.dumps(row["scenario"]))
    inline = json.loads(json.dumps(profile_json))
    inline["software"]["training_matmul_share"] = share
    scenario["software"] = inline
    out = json.loads(run(cli, ["predict", "-", "--json"], json.dumps(scenario)))
    if "error" in out:
        return 1.0
    return metric(out, row["metric"]) / row["expected"] - 1


def mean_abs(errors):
    return sum(abs(e) for e in errors) / len(errors)


def main():
    ap = ScriptParser(__doc__)
    ap.add_argument("profile", metavar="PROFILE", help="the software profile")
    ap.add_argument("fit", metavar="FIT_FILE[:GROUP]",
                    help="the rows fitted on (a file of tests/validation/data/)")
    ap.add_argument("check", nargs="*", default=[], metavar="CHECK_FILE[:GROUP]",
                    help="rows predicted out of sample")
    a = ap.parse_args()
    cli, profile = a.cli, a.profile
    profile_json = json.loads(run(cli, ["preset", "software", profile]))
    fit_rows = rows_of(a.fit, profile)
    if not fit_rows:
        sys.exit(f"no row of {a.fit} names the profile {profile}")
    grid = [round(0.50 + 0.01 * i, 2) for i in range(51)]
    best = None
    errors = {}
    for share in grid:
        errors[share] = [error(cli, profile_json, r, share) for r in fit_rows]
        m = mean_abs(errors[share])
        print(f"training_matmul_share {share:.2f}: mean |err| {100 * m:5.1f}% over {len(fit_rows)} rows")
        if best is None or m <= best[1]:
            best = (share, m)
    share = best[0]
    before = [error(cli, profile_json, r, 1.0) for r in fit_rows]
    print(f"\nfitted {share:.2f}: {a.fit} {100 * mean_abs(before):.1f}% -> {100 * best[1]:.1f}%")
    # Ties go to the larger share, as above: the grid searched from the top.
    print_loso(f"{profile} training_matmul_share, each source left out",
               loso_grid(grid[::-1], errors, [r["group"] for r in fit_rows], 1.0))
    for spec in a.check:
        rows = rows_of(spec, profile)
        if not rows:
            print(f"check {spec}: no row names {profile}")
            continue
        at1 = [error(cli, profile_json, r, 1.0) for r in rows]
        fit = [error(cli, profile_json, r, share) for r in rows]
        print(f"check {spec} ({len(rows)} rows): {100 * mean_abs(at1):.1f}% at 1 -> {100 * mean_abs(fit):.1f}% at {share:.2f}")
        for r, a, b in zip(rows, at1, fit):
            print(f"  {r['id']:60s} {100 * a:+6.1f}% -> {100 * b:+6.1f}%")


if __name__ == "__main__":
    main()
