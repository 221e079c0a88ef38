"""A test-only module for tests/test_audit_coverage.py: one branch the tests never take, and one
branch marked unreachable with a reason."""


def classify(x: int) -> str:
    if x > 10**9:
        return "huge"
    if x < 0:  # pragma: no branch the tests pass no negative number (a planted mark)
        return "negative"
    return "small"


def never_called(x: int) -> int:
    if x:
        return 1
    return 0
