#!/usr/bin/env python3
"""Phase diagnosis of training validation rows: each row's error beside its predicted breakdown.

Usage: scripts/diagnose_training.py [--cli PATH] [FILE.jsonl] [--software ID]
       scripts/diagnose_training.py [--cli PATH] [FILE.jsonl] --only TEXT[,TEXT...]
           [--set PATH=JSON ...]

FILE defaults to tests/validation/data/train_moe_public.jsonl. Every row is predicted as its case
states it (with --software ID, with that software profile set on every row instead) and printed
with its error (|predicted / measured - 1| on the case's metric, as the accuracy reports count it),
its direction (fast: the prediction is too fast, whatever the metric), its layout and the share of
the predicted step in each phase of `training.breakdown_s` (compute, expert all-to-all, pipeline,
tensor- and data-parallel communication, bubble, host), sorted by model and system. Rows that
are the same scenario in bf16 and in a narrower format (fp8, mxfp8, nvfp4) within one source are
listed with the narrow format's measured and predicted speedup. Rows that are the same scenario measured
in more than one source are listed afterwards with the spread between their measurements and the
least mean |error| any single prediction could reach on them (the noise floor that no model change
removes). docs/moe-training.md reads this output.

With --only (rows whose id contains any of the comma-separated texts) the rows are instead listed
with their measured and predicted step (seconds), the gap between them and the predicted step's
split by bound (training.by_bound_s: compute, memory, communication) and host wait; each --set
PATH=JSON (a dotted path into the scenario, e.g. parallel.etp=4, model.moe.capacity_factor=1.0,
software.software.moe_dispatcher='"alltoall"': an inline software profile) is applied to every
listed row and its error printed beside the case's own, with both means. This is how a recipe's
stated settings (which the public cases do not carry) are weighed against the model
(docs/moe-training.md, "How to diagnose").
"""
import json

from fitlib import ScriptParser, add_rows_argument, answer, json_value, metric

PHASES = [("compute", "comp"), ("ep_comm", "ep"), ("pp_comm", "pp"), ("tp_comm", "tp"), ("dp_comm", "dp"),
          ("bubble", "bub"), ("host", "host")]


def error(row, predicted):
    """predicted / measured - 1 on the row's metric (as the accuracy reports count it) and whether
    the prediction is too fast (a time metric below, a rate above the measurement)."""
    e = predicted / row["expected"] - 1.0
    return e, (e < 0) if row["metric"].endswith("time_s") else (e > 0)


def layout(sc):
    p, t = sc.get("parallel", {}), sc.get("training", {})
    model = sc["model"]["name"] if isinstance(sc["model"], dict) else sc["model"]
    return (f"{model[:16]:16s} {str(sc['system'])[:12]:12s} n{sc['num_devices']:<5d}"
            f"tp{p.get('tp', 1)} pp{p.get('pp', 1)} ep{p.get('ep', 1)} vp{p.get('interleave', 1)} "
            f"mb{p.get('micro_batch', 1)} gb{t.get('global_batch')} {t.get('precision', 'bf16')}")


def noise_floor(rows):
    """Groups of rows with the same scenario: spread and the best single-prediction mean |error|."""
    groups = {}
    for r in rows:
        sc = dict(r["scenario"])
        sc.pop("name", None)
        groups.setdefault(json.dumps(sc, sort_keys=True) + r["metric"], []).append(r)
    out = []
    for g in groups.values():
        if len(g) < 2:
            continue
        vals = [r["expected"] for r in g]
        lo, hi = min(vals), max(vals)
        candidates = [lo + (hi - lo) * i / 400 for i in range(401)]
        best = min(sum(abs(c / v - 1) for v in vals) / len(vals) for c in candidates)
        out.append((g, hi / lo, best))
    return out


def speed(row, value):
    """A rate on the row's metric: tokens/s as it is, a time inverted."""
    return 1.0 / value if row["metric"].endswith("time_s") else value


def precision_pairs(rows, predicted):
    """Rows that are the same scenario in 16-bit and in a narrower training format: the measured
    and the predicted speedup of the narrow format (its rate over the 16-bit rate), per pair."""
    groups = {}
    for r in rows:
        sc = json.loads(json.dumps(r["scenario"]))
        sc.pop("name", None)
        precision = sc.get("training", {}).pop("precision", "bf16")
        key = json.dumps(sc, sort_keys=True) + r["metric"] + r.get("group", "")
        groups.setdefault(key, {})[precision] = r
    out = []
    for g in groups.values():
        wide = g.get("bf16")
        if wide is None or wide["id"] not in predicted:
            continue
        for precision, narrow in sorted(g.items()):
            if precision == "bf16" or narrow["id"] not in predicted:
                continue
            measured = speed(narrow, narrow["expected"]) / speed(wide, wide["expected"])
            model = speed(narrow, predicted[narrow["id"]]) / speed(wide, predicted[wide["id"]])
            out.append((precision, measured, model, narrow["id"]))
    return out


def overridden(scenario, settings):
    """A copy of the scenario with each (dotted path, value) of `settings` set, parents created."""
    sc = json.loads(json.dumps(scenario))
    for path, value in settings:
        node = sc
        *parents, last = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return sc


def predict(cli, scenario):
    """The CLI's JSON answer for a scenario: its prediction, or its error object (a refused scenario)."""
    return answer(cli, ["predict", "-", "--json"], json.dumps(scenario))


def measured_step(row):
    """The measured step in seconds: the metric itself, or tokens per step over tokens/s."""
    if row["metric"].endswith("time_s"):
        return row["expected"]
    t = row["scenario"]["training"]
    return t["global_batch"] * t["seq_len"] / row["expected"]


def compare(cli, rows, settings):
    """The --only listing: each row's step measured / predicted and its bounds, and with --set the
    row's error under the settings beside its own."""
    mine, theirs = [], []
    for r in rows:
        base = predict(cli, r["scenario"])
        if "training" not in base:
            print(f"   refused ({base.get('error', {}).get('code', 'no training')}) {r['id']}")
            continue
        t = base["training"]
        e = metric(base, r["metric"]) / r["expected"] - 1
        meas, step = measured_step(r), t["iteration_time_s"]
        bounds = " ".join(f"{k[:4]} {v:6.2f}" for k, v in t["by_bound_s"].items() if k != "other")
        text = (f"{r['id'][:56]:56s} step {meas:8.2f} s pred {step:8.2f} gap {meas - step:+7.2f} | "
                f"{bounds} host {t['breakdown_s']['host']:6.2f} | {100 * e:+6.1f}%")
        mine.append(abs(e))
        if settings:
            out = predict(cli, overridden(r["scenario"], settings))
            if "training" in out:
                e2 = metric(out, r["metric"]) / r["expected"] - 1
                text += f" -> {100 * e2:+6.1f}%"
                theirs.append(abs(e2))
            else:
                text += f" -> refused ({out.get('error', {}).get('code')})"
                theirs.append(1.0)
        print(text)
    if mine:
        line = f"\n{len(mine)} rows, mean |error| {100 * sum(mine) / len(mine):.1f}%"
        if theirs:
            line += f" -> {100 * sum(theirs) / len(theirs):.1f}% with " + " ".join(
                f"{p}={json.dumps(v)}" for p, v in settings)
        print(line)


def setting(text):
    """A --set argument, PATH=JSON, as (path, value)."""
    path, _, value = text.partition("=")
    return path, json_value(value)


def main():
    ap = ScriptParser(__doc__)
    add_rows_argument(ap, "train_moe_public.jsonl")
    ap.add_argument("--software", metavar="ID", help="predict every row with this software profile")
    ap.add_argument("--only", metavar="TEXT[,TEXT...]",
                    help="list the rows whose id contains a text, with their steps")
    ap.add_argument("--set", metavar="PATH=JSON", type=setting, action="append", default=[], dest="settings",
                    help="with --only: a setting applied to every listed row (repeatable)")
    a = ap.parse_args()
    if a.settings and not a.only:
        ap.error("--set needs --only")
    cli, path, software, only, settings = a.cli, a.file, a.software, a.only, a.settings
    rows = [json.loads(line) for line in open(path) if line.strip()]
    if only:
        keep = only.split(",")
        compare(cli, [r for r in rows if any(k in r["id"] for k in keep)], settings)
        return
    lines, errors, predicted = [], [], {}
    for r in rows:
        sc = json.loads(json.dumps(r["scenario"]))
        if software:
            sc["software"] = software
        out = predict(cli, sc)
        if "error" in out or "training" not in out:
            lines.append((layout(sc), f"   refused ({out.get('error', {}).get('code', 'no training')}) {r['id']}"))
            errors.append(1.0)
            continue
        t = out["training"]
        predicted[r["id"]] = metric(out, r["metric"])
        e, fast = error(r, predicted[r["id"]])
        errors.append(abs(e))
        step = t["iteration_time_s"]
        shares = " ".join(f"{short}{t['breakdown_s'].get(key, 0) / step:.2f}" for key, short in PHASES)
        lines.append((layout(sc), f"{100 * abs(e):6.1f}% {'fast' if fast else 'slow'}  {shares}  {r['id']}"))
    for lay, text in sorted(lines):
        print(f"{lay}  {text}")
    print(f"\n{len(rows)} rows, mean |error| {100 * sum(errors) / len(errors):.1f}%")
    pairs = precision_pairs(rows, predicted)
    if pairs:
        print("\nThe same scenario in bf16 and a narrower format (the narrow format's speedup over bf16):")
        for precision, measured, model, rid in sorted(pairs, key=lambda x: x[3]):
            print(f"  {precision:6s} measured {measured:5.2f}x predicted {model:5.2f}x "
                  f"({100 * (model / measured - 1):+5.1f}%)  {rid}")
    floors = noise_floor(rows)
    if floors:
        print("\nThe same scenario measured more than once (spread, best single-prediction mean |error|):")
        total = 0.0
        for g, spread, best in sorted(floors, key=lambda x: -x[2]):
            total += best * len(g)
            print(f"  {spread:5.2f}x {100 * best:5.1f}%  " + " / ".join(f"{r['id']}: {r['expected']:.4g}" for r in g))
        print(f"floor on the set mean: {100 * total / len(rows):.2f} points")


if __name__ == "__main__":
    main()
