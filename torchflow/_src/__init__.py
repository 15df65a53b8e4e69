# OpenMP reads its environment when torch loads; torchflow's defaults must be in
# place before any engine module imports torch (see util/omp_env.py).
from torchflow._src.util import omp_env as _omp_env

_omp_env.apply()
