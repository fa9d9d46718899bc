"""Stockroom: a small inventory service for the parts shelf of a workshop."""

__version__ = "0.4.0"
