"""Time that grows linearly with the input, measured so that a shared, busy machine does not make it flaky."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def best_times(small: Callable[[], object], large: Callable[[], object], repeats: int = 7) -> tuple[float, float]:
    """CPU seconds of the best of ``repeats`` runs of ``small`` and of ``large``: process time (other processes'
    load does not count), runs interleaved (what load remains weighs on both alike), the collector off."""
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for index, run in enumerate((small, large)):
            gc.disable()
            try:
                start = time.process_time()
                run()
                best[index] = min(best[index], time.process_time() - start)
            finally:
                gc.enable()
    return best[0], best[1]
