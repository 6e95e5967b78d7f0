"""Shared by the fit scripts: read the command line, run the CLI, and predict a validation row
with one key of its system's software block set to a trial value."""
import argparse
import csv
import json
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "validation" / "data"
# The CLI of this tree's native build: what a script runs when --cli does not name another.
CLI = ROOT / "build" / "native" / "cli" / "optimus"


class ScriptParser(argparse.ArgumentParser):
    """The command line of a script here: -h / --help prints the script's module docstring `doc`
    (its usage) and its options and exits 0; an unknown option, a missing value or one that does
    not parse is a one-line error on stderr with exit status 2. Options and positionals may be
    interleaved. With `cli` (the scripts that run the CLI) it adds --cli PATH, the CLI to run
    (default build/native/cli/optimus of this tree, whatever the working directory), and still
    takes the CLI's path as the first positional argument, the form these scripts took before
    --cli: always where the script has no positional of its own, and where it has (a data file, a
    profile) when that argument is an executable file. The CLI is checked to be executable before
    the script runs it."""

    def __init__(self, doc, cli=True):
        # Filled by add_argument, argparse's own -h included: each option string and whether it
        # takes a value, and the count of the script's positionals.
        self._takes_value, self._own_positionals = {}, 0
        super().__init__(description=doc, usage=argparse.SUPPRESS,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
        self._runs_cli = cli
        if cli:
            self.add_argument("--cli", metavar="PATH",
                              help="the optimus CLI to run (default: build/native/cli/optimus of this tree); "
                                   "its path may also be the first positional argument, as before --cli")

    def add_argument(self, *args, **kwargs):
        action = super().add_argument(*args, **kwargs)
        for name in action.option_strings:
            self._takes_value[name] = action.nargs != 0
        self._own_positionals += not action.option_strings
        return action

    def parse_args(self, args=None, namespace=None):
        args = list(sys.argv[1:] if args is None else args)
        if self._runs_cli and not any(a == "--cli" or a.startswith("--cli=") for a in args):
            # The form before --cli (`script.py build/native/cli/optimus ...`) reads as `--cli PATH ...`.
            i = self._first_positional(args)
            if i is not None and self._positional_cli(args[i]):
                args = ["--cli", args[i], *args[:i], *args[i + 1:]]
        parsed = self.parse_intermixed_args(args, namespace)
        if self._runs_cli:
            parsed.cli = parsed.cli or str(CLI)
            if shutil.which(parsed.cli) is None:
                self.error(f"no executable CLI at {parsed.cli}: build it, or name it with --cli PATH")
        return parsed

    def _first_positional(self, args):
        """The index of the first argument that is neither an option nor an option's value (None
        when there is none); an unknown option is taken to have no value (parse_args refuses it)."""
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--":
                return i + 1 if i + 1 < len(args) else None
            if not arg.startswith("-") or arg == "-":
                return i
            name = arg.split("=", 1)[0]
            known = [o for o in self._takes_value if o == name] or \
                [o for o in self._takes_value if o.startswith(name) and name.startswith("--")]
            takes_value = len(known) == 1 and self._takes_value[known[0]] and "=" not in arg
            i += 2 if takes_value else 1
        return None

    def _positional_cli(self, arg):
        """Whether the first positional argument is the CLI's path in the form before --cli."""
        if not self._own_positionals:
            return True
        return os.path.isfile(arg) and os.access(arg, os.X_OK)

    def error(self, message):
        """A usage error: one line on stderr, exit status 2 (argparse's own prints the usage first)."""
        self.exit(2, f"{self.prog}: error: {message} (--help prints the usage)\n")


def json_value(text):
    """An argument that is a JSON value (ScriptParser's type=): malformed JSON is a usage error."""
    try:
        return json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not JSON: {text!r} ({e})") from None


def existing_file(text):
    """An argument that names a file (ScriptParser's type=): a missing one is a usage error."""
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    return text


def add_rows_argument(parser, default_name):
    """The optional FILE.jsonl positional of the diagnose scripts: the validation rows to read,
    tests/validation/data/`default_name` when absent (a missing file is a usage error)."""
    parser.add_argument("file", nargs="?", metavar="FILE.jsonl", type=existing_file,
                        default=str(DATA / default_name),
                        help=f"the rows (default: tests/validation/data/{default_name})")


def optimised_inference_rows():
    """The public inference rows of the optimised runtimes: infer_public.jsonl without the
    FasterTransformer guide's Megatron baseline rows (marked in inference.csv's framework column)."""
    with open(DATA / "inference.csv", newline="") as f:
        baseline = {r["case_id"] for r in csv.DictReader(f) if "baseline" in r["framework"]}
    rows = [json.loads(line) for line in open(DATA / "infer_public.jsonl") if line.strip()]
    return [r for r in rows if r["id"].split(":")[0] not in baseline]


def run(cli, args, stdin=None):
    out = subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, check=True)
    return out.stdout


def answer(cli, args, stdin=None):
    """The CLI's JSON answer whatever its exit status (a refused scenario prints its error object and
    exits 2), or {"error": {"code": "cli.no_json"}} when it printed none."""
    out = subprocess.run([cli, *args], input=stdin, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip().startswith("{") else {"error": {"code": "cli.no_json"}}


class SoftwareTrial:
    """Predicts rows with system.software[key] = value (the system preset inlined once per id)."""

    def __init__(self, cli, key):
        self.cli, self.key, self.systems = cli, key, {}

    def predict(self, row, value):
        """The row's metric (a dotted path; a last part `a+b` sums the two), or None on an error."""
        return self.predict_with(row, {self.key: value})

    def predict_with(self, row, software):
        """predict() with several system.software keys set at once (a dict key -> value)."""
        scenario = json.loads(json.dumps(row["scenario"]))
        sid = scenario["system"]
        if sid not in self.systems:
            self.systems[sid] = json.loads(run(self.cli, ["preset", "systems", sid]))
        system = json.loads(json.dumps(self.systems[sid]))
        system.setdefault("software", {}).update(software)
        scenario["system"] = system
        # A named software profile lies over the system's block: set the trial value there too.
        if isinstance(scenario.get("software"), str):
            scenario["software"] = json.loads(run(self.cli, ["preset", "software", scenario["software"]]))
        if isinstance(scenario.get("software"), dict):
            scenario["software"].setdefault("software", {}).update(software)
        out = json.loads(run(self.cli, ["predict", "-", "--json"], json.dumps(scenario)))
        if "error" in out:
            return None
        return metric(out, row["metric"])


def grid_errors(cli, rows, grid, variant, label, show=str):
    """Each row's signed relative error (None where the engine refuses it) with the scenario
    variant(scenario, value) for every value of a one-parameter grid, predictions cached by the
    scenario's text; prints the mean |error| (a refusal counting 100%) at each value."""
    cache = {}

    def error(row, value):
        text = json.dumps(variant(row["scenario"], value), sort_keys=True)
        if text not in cache:
            cache[text] = json.loads(run(cli, ["predict", "-", "--json"], text))
        out = cache[text]
        return None if "error" in out else metric(out, row["metric"]) / row["expected"] - 1

    errors = {v: [error(r, v) for r in rows] for v in grid}
    print(f"{label}  mean |err| over {len(rows)} rows")
    for v in grid:
        es = [abs(e) if e is not None else 1.0 for e in errors[v]]
        print(f"  {show(v):>10}  {100 * sum(es) / len(es):6.1f}%")
    return errors


def metric(out, dotted):
    """A prediction's metric by its dotted path (a last part `a+b` sums the two)."""
    node = out
    *parents, last = dotted.split(".")
    for key in parents:
        node = node[key]
    return sum(node[k] for k in last.split("+"))


def grid_report(label, idx, grid, errors, unit):
    """Prints the grid value with the least mean |relative error| over rows `idx` (errors[value][k]
    = predicted / measured - 1 of row k), against the first grid value."""
    def mean(es):
        return sum(abs(e) for e in es) / len(es)

    best = min(grid, key=lambda v: mean([errors[v][k] for k in idx]))
    first = grid[0]
    print(f"{label}: {len(idx)} rows, best {best} {unit}, mean |err| "
          f"{100 * mean([errors[first][k] for k in idx]):.1f}% at {first} -> "
          f"{100 * mean([errors[best][k] for k in idx]):.1f}%")


# --- leave-one-source-out ---------------------------------------------------------------------
# Every fitted constant is reported twice (issue 37): in sample (fitted on every row, each row
# predicted by it) and left out (each source's rows predicted by the value fitted on the other
# sources' rows alone). A source is a row's `group` (a paper's table, a container release, a
# model card family); a constant whose every row comes from one source has nothing to be fitted
# on when that source is left out, and the left-out column then shows `reference`, the value the
# engine would take without the fit (None: not reported).

MISS = 1.0  # a row the engine cannot predict counts as a 100% miss, as the accuracy tool counts it


def _abs(e):
    return MISS if e is None else abs(e)


def mean_abs(errors):
    return sum(_abs(e) for e in errors) / len(errors) if errors else float("nan")


def max_abs(errors):
    return max((_abs(e) for e in errors), default=float("nan"))


def loso(sources, fit, error, reference=None):
    """Leave-one-source-out. sources[k] names row k's source; fit(idx) returns the value fitted on
    rows idx; error(value, k) is row k's signed relative error (predicted / measured - 1, None when
    the engine refuses it) at that value. Returns {"value": fitted on all rows, "sources": {source:
    {"rows", "in": [errors], "held_value", "out": [errors]}}}; held_value is `reference` (and out
    None when reference is None) for a source that is the only one."""
    idx = list(range(len(sources)))
    value = fit(idx)
    out = {}
    for src in sorted(set(sources)):
        mine = [k for k in idx if sources[k] == src]
        rest = [k for k in idx if sources[k] != src]
        held = fit(rest) if rest else reference
        out[src] = {
            "rows": mine,
            "in": [error(value, k) for k in mine],
            "held_value": held,
            "out": None if held is None else [error(held, k) for k in mine],
        }
    return {"value": value, "sources": out}


def grid_fit(grid, errors):
    """fit(idx) for loso(): the grid value with the least mean |error| over rows idx (ties: the
    first in grid order); errors[value][k] as in grid_report."""
    return lambda idx: min(grid, key=lambda v: mean_abs([errors[v][k] for k in idx]))


def loso_grid(grid, errors, sources, reference=None):
    """loso() of a one-parameter grid fit (errors[value][k] precomputed for every grid value; the
    reference, when given, must be on the grid or in errors)."""
    return loso(sources, grid_fit(grid, errors), lambda v, k: errors[v][k], reference)


def _fmt(v):
    return "-" if v is None else (f"{v:g}" if isinstance(v, (int, float)) else str(v))


def print_loso(label, result, unit=""):
    """The per-source table of a loso() result: rows, in-sample mean / max |error| at the value
    fitted on all rows, and left-out mean / max at the value fitted without the source."""
    src = result["sources"]
    print(f"\n{label}: fitted on all {sum(len(s['rows']) for s in src.values())} rows: "
          f"{_fmt(result['value'])} {unit}")
    print(f"  {'source':70s} {'rows':>4s} {'in mean':>8s} {'max':>7s} | {'left out: value':>16s} "
          f"{'mean':>7s} {'max':>7s}")
    every_in, every_out = [], []
    for name, s in src.items():
        every_in += s["in"]
        o = s["out"]
        if o is not None:
            every_out += o
        print(f"  {name[:70]:70s} {len(s['rows']):4d} {100 * mean_abs(s['in']):7.1f}% "
              f"{100 * max_abs(s['in']):6.1f}% | {_fmt(s['held_value']) + ' ' + unit:>16s} "
              + ("      -       -" if o is None else f"{100 * mean_abs(o):6.1f}% {100 * max_abs(o):6.1f}%"))
    print(f"  {'all':70s} {len(every_in):4d} {100 * mean_abs(every_in):7.1f}% {100 * max_abs(every_in):6.1f}% | "
          f"{'':16s} " + (f"{100 * mean_abs(every_out):6.1f}% {100 * max_abs(every_out):6.1f}%"
                           + ("" if len(every_out) == len(every_in) else f" ({len(every_out)} rows)")
                           if every_out else "      -       -"))
    return mean_abs(every_in), (mean_abs(every_out) if every_out else None)


def rl_grid_main(doc, grid, variant, label, show, name, unit, reference, keep=lambda row: True):
    """The main of a one-parameter fit on the public RL rows (tests/validation/data/rl_public.jsonl,
    those `keep` keeps): the CLI from the command line (ScriptParser; `doc` is the script's usage),
    grid_errors, then the leave-one-source-out table (a source is a row's group)."""
    cli = ScriptParser(doc).parse_args().cli
    rows = [json.loads(line) for line in open(DATA / "rl_public.jsonl") if line.strip()]
    rows = [r for r in rows if keep(r)]
    errors = grid_errors(cli, rows, grid, variant, label, show)
    print_loso(name, loso_grid(grid, errors, [r["group"] for r in rows], reference=reference), unit)
