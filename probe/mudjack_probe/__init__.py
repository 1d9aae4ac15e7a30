"""mudjack_probe: the Python side of MudJack's probe protocol (see schemas/probe-protocol-v1.md)."""

PROTOCOL_VERSION = 1
# Additions within version 1 (schemas/probe-protocol-v1.md): 1.1 adds `engine_fault`.
PROTOCOL_MINOR = 1
__version__ = "0.1.0"
