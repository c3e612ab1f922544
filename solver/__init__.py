"""mille-sabords: the exact solver and advisor for the dice game Mille Sabords.

Kept tiny on purpose: importing the package must stay cheap (the advisor's cold start).
"""

__version__ = "0.1.0"
