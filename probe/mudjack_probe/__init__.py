"""mudjack_probe: the Python side of MudJack's probe protocol (see schemas/probe-protocol-v1.md)."""

PROTOCOL_VERSION = 1
# Additions within version 1 (schemas/probe-protocol-v1.md): 1.1 adds
# `engine_fault`; 1.2 adds `device_unusable` to result and `kind` to each check; 1.9 the
# requests `build`, `repro_graph` and `reference`; 1.10 `repro`'s bound_eps and minimal,
# `repro_graph`'s eager and `accelerators_absent` in hello.
PROTOCOL_MINOR = 14
__version__ = "0.1.0"
