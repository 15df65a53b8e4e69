"""``tf.keras.datasets``."""

from torchflow.keras.datasets import boston_housing as boston_housing
from torchflow.keras.datasets import cifar10 as cifar10
from torchflow.keras.datasets import cifar100 as cifar100
from torchflow.keras.datasets import fashion_mnist as fashion_mnist
from torchflow.keras.datasets import imdb as imdb
from torchflow.keras.datasets import mnist as mnist
from torchflow.keras.datasets import reuters as reuters
