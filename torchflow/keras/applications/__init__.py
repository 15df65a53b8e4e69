"""``tf.keras.applications``: Keras 2's image-classification models (built with
``weights=None`` here; ``"imagenet"`` fetches TF's weight files)."""

from torchflow._src.keras.applications.densenet import DenseNet121 as DenseNet121
from torchflow._src.keras.applications.densenet import DenseNet169 as DenseNet169
from torchflow._src.keras.applications.densenet import DenseNet201 as DenseNet201
from torchflow._src.keras.applications.efficientnet import EfficientNetB0 as EfficientNetB0
from torchflow._src.keras.applications.efficientnet import EfficientNetB1 as EfficientNetB1
from torchflow._src.keras.applications.efficientnet import EfficientNetB2 as EfficientNetB2
from torchflow._src.keras.applications.efficientnet import EfficientNetB3 as EfficientNetB3
from torchflow._src.keras.applications.efficientnet import EfficientNetB4 as EfficientNetB4
from torchflow._src.keras.applications.efficientnet import EfficientNetB5 as EfficientNetB5
from torchflow._src.keras.applications.efficientnet import EfficientNetB6 as EfficientNetB6
from torchflow._src.keras.applications.efficientnet import EfficientNetB7 as EfficientNetB7
from torchflow._src.keras.applications.inception_resnet_v2 import (
    InceptionResNetV2 as InceptionResNetV2,
)
from torchflow._src.keras.applications.inception_v3 import InceptionV3 as InceptionV3
from torchflow._src.keras.applications.mobilenet import MobileNet as MobileNet
from torchflow._src.keras.applications.mobilenet_v2 import MobileNetV2 as MobileNetV2
from torchflow._src.keras.applications.mobilenet_v3 import MobileNetV3Large as MobileNetV3Large
from torchflow._src.keras.applications.mobilenet_v3 import MobileNetV3Small as MobileNetV3Small
from torchflow._src.keras.applications.nasnet import NASNetLarge as NASNetLarge
from torchflow._src.keras.applications.nasnet import NASNetMobile as NASNetMobile
from torchflow._src.keras.applications.resnet import ResNet50 as ResNet50
from torchflow._src.keras.applications.resnet import ResNet101 as ResNet101
from torchflow._src.keras.applications.resnet import ResNet152 as ResNet152
from torchflow._src.keras.applications.resnet_v2 import ResNet50V2 as ResNet50V2
from torchflow._src.keras.applications.resnet_v2 import ResNet101V2 as ResNet101V2
from torchflow._src.keras.applications.resnet_v2 import ResNet152V2 as ResNet152V2
from torchflow._src.keras.applications.vgg16 import VGG16 as VGG16
from torchflow._src.keras.applications.vgg19 import VGG19 as VGG19
from torchflow._src.keras.applications.xception import Xception as Xception
from torchflow.keras.applications import densenet as densenet
from torchflow.keras.applications import efficientnet as efficientnet
from torchflow.keras.applications import imagenet_utils as imagenet_utils
from torchflow.keras.applications import inception_resnet_v2 as inception_resnet_v2
from torchflow.keras.applications import inception_v3 as inception_v3
from torchflow.keras.applications import mobilenet as mobilenet
from torchflow.keras.applications import mobilenet_v2 as mobilenet_v2
from torchflow.keras.applications import mobilenet_v3 as mobilenet_v3
from torchflow.keras.applications import nasnet as nasnet
from torchflow.keras.applications import resnet as resnet
from torchflow.keras.applications import resnet50 as resnet50
from torchflow.keras.applications import resnet_v2 as resnet_v2
from torchflow.keras.applications import vgg16 as vgg16
from torchflow.keras.applications import vgg19 as vgg19
from torchflow.keras.applications import xception as xception
