"""mqtool: forensic toolkit for mainframe and midrange messaging data."""

__version__ = "0.1.0"
