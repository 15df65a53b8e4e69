"""``tf.keras.utils.Progbar``: the Keras progress bar."""

from __future__ import annotations

import sys
import time

import numpy as np

from torchflow._src.util.api import public


@public("torchflow.keras.utils")
class Progbar:
    """Displays a progress bar.

    Args:
      target: Total number of steps expected, None if unknown.
      width: Bar width on screen.
      verbose: 0 (silent), 1 (bar, updated in place) or 2 (one line at the end).
      interval: Minimum seconds between updates.
      stateful_metrics: Names of metrics shown as given, not averaged.
      unit_name: Display name for a step (default ``"step"``).
    """

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._dynamic_display = (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or \
            "ipykernel" in sys.modules
        self._total_width = 0
        self._seen_so_far = 0
        self._values: dict = {}
        self._values_order: list = []
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step = None

    def _will_draw(self, current, finalize=False) -> bool:
        """Whether ``update(current, ..., finalize)`` would redraw the bar now."""
        if self.verbose != 1:
            return False
        return finalize or time.time() - self._last_update >= self.interval

    def _advance(self, current) -> None:
        """``update(current)`` with no values where it would not redraw."""
        if current == 1 and self._time_after_first_step is None:
            self._time_after_first_step = time.time()
        self._seen_so_far = current

    def update(self, current, values=None, finalize=None):
        """Moves the bar to step ``current`` and records ``values`` (name, value) pairs."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        values = values or []
        for k, v in values:
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics:
                value_base = max(current - self._seen_so_far, 1)
                if k not in self._values:
                    self._values[k] = [v * value_base, value_base]
                else:
                    self._values[k][0] += v * value_base
                    self._values[k][1] += value_base
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current
        now = time.time()
        info = f" - {now - self._start:.0f}s"
        if current == 1 and self._time_after_first_step is None:
            self._time_after_first_step = now
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            prev_total_width = self._total_width
            if self._dynamic_display:
                sys.stdout.write("\b" * prev_total_width)
                sys.stdout.write("\r")
            else:
                sys.stdout.write("\n")
            if self.target is not None:
                numdigits = int(np.log10(self.target)) + 1 if self.target > 0 else 1
                bar = f"{current:{numdigits}d}/{self.target} ["
                prog = float(current) / self.target if self.target else 1.0
                prog_width = int(self.width * prog)
                if prog_width > 0:
                    bar += "=" * (prog_width - 1)
                    bar += ">" if current < self.target else "="
                bar += "." * (self.width - prog_width)
                bar += "]"
            else:
                bar = f"{current:7d}/Unknown"
            self._total_width = len(bar)
            sys.stdout.write(bar)
            time_per_unit = self._time_per_unit(current, now)
            if self.target is None or finalize:
                info += self._format_time(time_per_unit)
            else:
                eta = time_per_unit * (self.target - current)
                if eta > 3600:
                    eta_format = f"{eta // 3600:.0f}:{(eta % 3600) // 60:02.0f}:{eta % 60:02.0f}"
                elif eta > 60:
                    eta_format = f"{eta // 60:.0f}:{eta % 60:02.0f}"
                else:
                    eta_format = f"{eta:.0f}s"
                info = f" - ETA: {eta_format}"
            info += self._format_values()
            self._total_width += len(info)
            if prev_total_width > self._total_width:
                info += " " * (prev_total_width - self._total_width)
            if finalize:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        elif self.verbose == 2 and finalize:
            numdigits = int(np.log10(self.target)) + 1 if self.target else 1
            count = f"{current:{numdigits}d}/{self.target}" if self.target else ""
            info = count + info + self._format_values() + "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        self._last_update = now

    def _time_per_unit(self, current, now):
        if current == 1 or self._time_after_first_step is None:
            return (now - self._start) / max(current, 1)
        return (now - self._time_after_first_step) / max(current - 1, 1)

    def _format_time(self, time_per_unit):
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" {time_per_unit:.0f}s/{self.unit_name}"
        if time_per_unit >= 1e-3:
            return f" {time_per_unit * 1e3:.0f}ms/{self.unit_name}"
        return f" {time_per_unit * 1e6:.0f}us/{self.unit_name}"

    def _format_values(self):
        info = ""
        for k in self._values_order:
            total, count = self._values[k]
            avg = total / max(1, count) if k not in self.stateful_metrics else total
            avg = float(np.mean(avg))
            info += f" - {k}: {avg:.4f}" if abs(avg) > 1e-3 else f" - {k}: {avg:.4e}"
        return info

    def add(self, n, values=None):
        """Advances the bar by ``n`` steps."""
        self.update(self._seen_so_far + n, values)
