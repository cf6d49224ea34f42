"""Run a coroutine from synchronous code, also where an event loop is already running (Jupyter).

``asyncio.run`` refuses to start inside a running loop, which is where every
notebook cell runs. :func:`run_sync` runs the coroutine in a worker thread
with its own loop in that case, and waits for it; the async API
(``await tester.aexecute()``) avoids the thread altogether.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result; in a running loop it runs to completion in a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="langbite") as pool:
        return pool.submit(asyncio.run, coroutine).result()
