"""Agreebound: is this verdict reliable enough to act on?"""

__version__ = "0.1.0"
