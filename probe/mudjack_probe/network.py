"""The probe reaches loopback only.

Case code (a model library reaching for a hub, a suite that downloads data)
must never send a packet off this machine: an audit hook refuses, before the
socket call, every connection and name lookup for an address that is not
loopback, with an error that says so. A model that tries the network then
fails with that reason instead of hanging on a timeout. Unix sockets and
loopback (127.0.0.0/8, ::1, localhost and this host's own name) stay open:
tests and frameworks talk to themselves over them.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import Any


class NetworkRefused(ConnectionRefusedError):
    """A connection or name lookup for an address that is not loopback."""


def _literal(host: Any) -> bool:
    """An IP address written out: looking it up sends nothing (connect is checked)."""
    text = (host.decode(errors="replace") if isinstance(host, bytes) else str(host)).split("%")[0].strip("[]")
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def _loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if host is None or host in ("", "localhost", "localhost.localdomain", socket.gethostname()):
        return True
    text = str(host).split("%")[0].strip("[]")
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return text.endswith(".localhost")


def _refuse(what: str, host: Any) -> None:
    raise NetworkRefused(f"network access refused: {what} {host!r} is not loopback "
                         "(MudJack probes reach loopback only; hub libraries run offline)")


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event in ("socket.connect", "socket.sendto") and len(args) >= 2:
        sock, address = args[0], args[1]
        inet = getattr(sock, "family", None) in (socket.AF_INET, socket.AF_INET6)
        if inet and isinstance(address, tuple) and not _loopback(address[0]):
            _refuse("connection to", address[0])
    elif event == "socket.getaddrinfo" and args and not _loopback(args[0]) and not _literal(args[0]):
        _refuse("name lookup of", args[0])


_installed: list[bool] = []


def guard() -> None:
    """Install the hook once per process (audit hooks cannot be removed)."""
    if not _installed:
        sys.addaudithook(_hook)
        _installed.append(True)
