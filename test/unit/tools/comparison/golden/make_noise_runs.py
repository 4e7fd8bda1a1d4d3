#!/usr/bin/env python3
"""Three runs a side for the noise test's golden case (README.md): BASE and NEW reports
(gpuprof report --format json --limit 0) with their CPU times scaled as run-to-run noise
scales them, GPU times left as they are. Usage: make_noise_runs.py BASE.json NEW.json OUTDIR"""

import json
import os
import sys

# Medians 1.0 against 1.03: CPU times changed, but inside the spread of the runs.
FACTORS = {"base": (1.0, 1.1, 0.92), "new": (1.03, 0.95, 1.08)}
CPU_FIELDS = ("self_cpu_ns", "cpu_total_ns")


def scaled(report, factor):
    out = json.loads(json.dumps(report))
    for row in out["rows"]:
        for field in CPU_FIELDS:
            row[field] = round(row[field] * factor)
    out["totals"]["self_cpu_ns"] = sum(r["self_cpu_ns"] for r in out["rows"])
    return out


def main(base_path, new_path, outdir):
    os.makedirs(outdir, exist_ok=True)
    for side, path in (("base", base_path), ("new", new_path)):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        for run, factor in enumerate(FACTORS[side], 1):
            target = os.path.join(outdir, f"{side}-{run}.json")
            with open(target, "w", encoding="utf-8") as f:
                json.dump(scaled(report, factor), f, indent=2)
                f.write("\n")
            print(f"wrote {target}")


if __name__ == "__main__":
    main(*sys.argv[1:])
