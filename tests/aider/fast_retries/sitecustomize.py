"""Test-only: makes aider give up its own retries quickly.

aider 0.86.2 retries a failed model call by itself, doubling a delay from 0.25 s until it passes
`RETRY_TIMEOUT` (60 s in aider/models.py, read by aider/coders/base_coder.py at import): about a
minute and a half of sleeping before a failure reaches `goal run`. No flag, setting or environment
variable of aider changes it, so the tests put this folder on PYTHONPATH and lower it here, before
aider imports it: one retry (0.25 s), then the failure is printed and aider exits.
"""

import os

limit = os.environ.get("GOAL_TEST_AIDER_RETRY_TIMEOUT")
if limit:
    import aider.models

    aider.models.RETRY_TIMEOUT = float(limit)
