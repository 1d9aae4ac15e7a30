"""mudjack_probe: the Python side of MudJack's probe protocol (see schemas/probe-protocol-v1.md)."""

PROTOCOL_VERSION = 1
__version__ = "0.1.0"
