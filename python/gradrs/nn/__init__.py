"""`gradrs.nn`: neural-network building blocks (the functional API for now)."""

from . import functional as functional
