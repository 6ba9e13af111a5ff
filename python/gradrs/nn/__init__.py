"""`gradrs.nn`: neural-network building blocks (the functional API for now)."""

from . import functional as functional
from . import init as init
from .modules.module import Module as Module
from .parameter import Buffer as Buffer, Parameter as Parameter
