"""The reliability toolkit: homes, secret formats, plantings, faults, kills, concurrency checks.

`tests/test_reliability_*.py` import from these modules; `tests/reliability_report.py` runs them all and
prints the figures, so the figures and the tests measure the same things.
"""
