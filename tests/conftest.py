import os

import ci_order

os.environ.setdefault("WORKBOOK_MODE", "ci")
# tests fit every machine from the code, never from a fit stored by an earlier run (reproduce/fit_cache.py);
# the fit cache's own tests point it at a temporary folder
os.environ["KWB_FIT_CACHE"] = "off"


def pytest_collection_modifyitems(config, items):
    """Costliest files first (tests/ci_order.py): with `--dist loadfile --no-loadscope-reorder` the workers take
    the files in this order, so the long notebooks and reproductions no longer start last."""
    items[:] = ci_order.costliest_first(items)


_file_times = ci_order.FileTimes()


def pytest_runtest_logreport(report):
    _file_times.add(report)


def pytest_terminal_summary(terminalreporter):
    """Say loudly when the real-browser tests did not run (no chromium, no playwright); name the costly test
    files and notebooks whose cost tests/ci_order.py does not declare."""
    slow = _file_times.undeclared()
    if slow:
        terminalreporter.write_sep("-", "files of 20 s or more not in tests/ci_order.py TEST_FILE_SECONDS")
        for f, s in slow:
            terminalreporter.write_line(f"{s:8.1f} s  {f}")
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "BROWSER TESTS SKIPPED" in str(r.longrepr)]
    if skipped:
        why = str(skipped[0].longrepr).split("BROWSER TESTS SKIPPED: ", 1)[-1].rstrip("')\" ")
        terminalreporter.write_sep("!", f"BROWSER TESTS SKIPPED ({len(skipped)}): {why}", red=True, bold=True)


# The notebooks under fixtures/submissions-hostile attack the grader: never collected (nbval would run them
# outside any sandbox, as the tester's user, against this very folder).  Their cells are also marked NBVAL_SKIP.
# (A conftest.py of their own would be imported under the name "conftest" and shadow tests/browser/conftest.py
# for the browser tests' imports inside a test.)
collect_ignore_glob = ["fixtures/submissions-hostile/*"]
