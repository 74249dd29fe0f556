"""pyperf entry point: ``python -m kernel_workbook.bench.run -o out.json [--fast]``.

pyperf re-runs this file in worker processes, so it uses absolute imports only.
"""

import sys

import pyperf

from kernel_workbook.bench import all_benchmarks


def main() -> None:
    runner = pyperf.Runner(add_cmdline_args=lambda cmd, args: cmd.extend(["--suites", args.suites]))
    runner.argparser.add_argument("--suites", default="", help="comma-separated suite names (default: all)")
    args = runner.parse_args()
    only = [s for s in args.suites.split(",") if s] or None
    for b in all_benchmarks(only):
        runner.bench_time_func(b.name, b.time_func, metadata=b.metadata())
        if b.baseline_time_func is not None:
            runner.bench_time_func(f"{b.name} [baseline: {b.baseline}]", b.baseline_time_func,
                                   metadata=b.baseline_metadata())
        if b.peak_func is not None:
            runner.bench_time_func(b.peak_name, b.peak_time_func(), metadata=b.peak_metadata())


if __name__ == "__main__":
    main()
    sys.exit(0)
