__version__ = "0.1.0"
"""The client's version: the mnemo server release it is made with and tested against."""
