import os

os.environ.setdefault("WORKBOOK_MODE", "ci")
# tests fit every machine from the code, never from a fit stored by an earlier run (reproduce/fit_cache.py);
# the fit cache's own tests point it at a temporary folder
os.environ["KWB_FIT_CACHE"] = "off"


def pytest_terminal_summary(terminalreporter):
    """Say loudly when the real-browser tests did not run (no chromium, no playwright)."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "BROWSER TESTS SKIPPED" in str(r.longrepr)]
    if skipped:
        why = str(skipped[0].longrepr).split("BROWSER TESTS SKIPPED: ", 1)[-1].rstrip("')\" ")
        terminalreporter.write_sep("!", f"BROWSER TESTS SKIPPED ({len(skipped)}): {why}", red=True, bold=True)


# The notebooks under fixtures/submissions-hostile attack the grader: never collected (nbval would run them
# outside any sandbox, as the tester's user, against this very folder).  Their cells are also marked NBVAL_SKIP.
# (A conftest.py of their own would be imported under the name "conftest" and shadow tests/browser/conftest.py
# for the browser tests' imports inside a test.)
collect_ignore_glob = ["fixtures/submissions-hostile/*"]
