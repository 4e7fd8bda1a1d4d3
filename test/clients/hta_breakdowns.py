"""Runs HolisticTraceAnalysis on a directory of gpuprof traces (one per rank) and
writes what test_hta.py compares with gpuprof report, as JSON:

    python hta_breakdowns.py TRACE_DIR OUT.json"""

import json
import sys

from hta.trace_analysis import TraceAnalysis


def gpu_events(analysis):
    """Per rank and GPU event name: how many events HTA kept and their total duration (us)."""
    names = analysis.t.symbol_table.get_sym_table()
    result = {}
    for rank, df in analysis.t.traces.items():
        gpu = df[df["stream"].ne(-1)]
        per_name = result.setdefault(int(rank), {})
        for name_id, group in gpu.groupby("name"):
            per_name[names[name_id]] = {"count": int(len(group)), "sum": float(group["dur"].sum())}
    return result


def main():
    trace_dir, out = sys.argv[1], sys.argv[2]
    # Every step: HTA leaves the last ProfilerStep out by default (often cut short).
    analysis = TraceAnalysis(trace_dir=trace_dir, include_last_profiler_step=True)
    temporal = analysis.get_temporal_breakdown(visualize=False)
    # All kernels, not only the top ones that make 80% of the time.
    kernel_types, kernels = analysis.get_gpu_kernel_breakdown(
        visualize=False, duration_ratio=1.0, num_kernels=1000)
    idle = analysis.get_idle_time_breakdown(ranks=analysis.t.get_ranks(), visualize=False)
    idle_by_stream = idle[0] if isinstance(idle, tuple) else idle
    result = {
        "ranks": sorted(int(r) for r in analysis.t.traces),
        "temporal": temporal[["rank", "idle_time(us)", "compute_time(us)",
                              "non_compute_time(us)", "kernel_time(us)"]].to_dict("records"),
        "kernel_types": kernel_types[["kernel_type", "sum"]].to_dict("records"),
        "kernels": kernels[["name", "sum (us)", "mean (us)", "rank"]].to_dict("records"),
        "idle": idle_by_stream[["rank", "stream", "idle_category",
                                "idle_time"]].to_dict("records"),
        "gpu_events": gpu_events(analysis),
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, default=float)


if __name__ == "__main__":
    main()
