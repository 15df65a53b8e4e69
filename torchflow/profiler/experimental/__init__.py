"""``tf.profiler.experimental``: start/stop a profile, trace ranges, remote capture."""

from torchflow._src.profiler.session import Profile as Profile
from torchflow._src.profiler.session import ProfilerOptions as ProfilerOptions
from torchflow._src.profiler.session import start as start
from torchflow._src.profiler.session import stop as stop
from torchflow._src.profiler.trace import Trace as Trace
from torchflow.profiler.experimental import client as client
from torchflow.profiler.experimental import server as server
