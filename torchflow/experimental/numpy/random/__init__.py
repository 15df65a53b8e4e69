"""``tf.experimental.numpy.random``."""

from torchflow._src.numpy.np_random import poisson as poisson
from torchflow._src.numpy.np_random import rand as rand
from torchflow._src.numpy.np_random import randint as randint
from torchflow._src.numpy.np_random import randn as randn
from torchflow._src.numpy.np_random import random as random
from torchflow._src.numpy.np_random import seed as seed
from torchflow._src.numpy.np_random import standard_normal as standard_normal
from torchflow._src.numpy.np_random import uniform as uniform
