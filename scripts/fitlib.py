"""Shared by the fit scripts: run the CLI, and predict a validation row with one key of its
system's software block set to a trial value."""
import json
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "validation" / "data"


def run(cli, args, stdin=None):
    out = subprocess.run([cli, *args], input=stdin, capture_output=True, text=True, check=True)
    return out.stdout


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
        out = json.loads(run(self.cli, ["predict", "-", "--json"], json.dumps(scenario)))
        if "error" in out:
            return None
        return metric(out, row["metric"])


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
