"""Serving the application with uvicorn: the address a phone opens, and its QR code.

:func:`serve` runs :func:`solver.web.create_app` on uvicorn (one process, or several workers
importing ``solver.web:app`` with the settings passed in the environment). Bound to every
interface (``0.0.0.0``), the server is reached by phones on the same network at this machine's
address on that network (:func:`network_addresses`: the addresses of its interfaces, read
without sending anything), shown as a link and a QR code in the terminal (:func:`qr_lines`,
segno).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import socket
import struct
import sys
from collections.abc import Callable
from dataclasses import fields

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..errors import SettingsError
from .settings import ENV_PREFIX, Settings

ANY_HOSTS = ("0.0.0.0", "::", "")
"""Hosts that bind every interface."""


def _interface_addresses() -> list[str]:
    """The IPv4 address of each network interface (Linux: SIOCGIFADDR), none on failure."""
    try:
        import fcntl
    except ImportError:  # not a Unix
        return []
    found: list[str] = []
    siocgifaddr = 0x8915
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(sock.fileno(), siocgifaddr,
                                     struct.pack("256s", name[:15].encode()))
            except OSError:
                continue
            found.append(socket.inet_ntoa(packed[20:24]))
    return found


def network_addresses() -> list[str]:
    """This machine's IPv4 addresses that other machines can reach: private ones first, no
    loopback (read from the interfaces and the host name; nothing is sent)."""
    candidates = _interface_addresses()
    try:
        candidates += [str(info[4][0]) for info in
                       socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    out: list[str] = []
    for text in dict.fromkeys(candidates):
        address = ipaddress.ip_address(text)
        if address.is_loopback or address.is_link_local or address.is_unspecified:
            continue
        out.append(text)
    return sorted(out, key=lambda a: not ipaddress.ip_address(a).is_private)


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def phone_url(host: str, port: int) -> str | None:
    """The address a phone on the same network opens, or None (a loopback host: this machine
    only; or no network address found)."""
    if host in ANY_HOSTS:
        addresses = network_addresses()
        return url_of(addresses[0], port) if addresses else None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        if host == "localhost":
            return None
    return url_of(host, port)


def allowed_hosts(host: str, given: list[str]) -> tuple[str, ...]:
    """The host names the server answers (:attr:`Settings.allowed_hosts`). On every interface
    (``0.0.0.0``): this machine's network addresses, ``localhost``, ``127.0.0.1`` and the names
    `given` (``--allowed-host``, e.g. the machine's name on the network), so that a page of
    another site cannot reach the server through a name of its own (DNS rebinding); a request
    for any other ``Host`` is refused (400). On one address: `given` only, if any (none
    checked otherwise)."""
    if host not in ANY_HOSTS:
        return tuple(dict.fromkeys(given))
    return tuple(dict.fromkeys([*given, "localhost", "127.0.0.1", "[::1]",
                                *network_addresses()]))


def qr_lines(text: str) -> list[str]:
    """A QR code of `text` for a terminal (segno's compact form: two rows of modules a line,
    in half blocks, light modules drawn, for a terminal with a dark background)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue().splitlines()


def check_port(host: str, port: int) -> None:
    """Raise :class:`SettingsError` if `host`:`port` cannot be listened on (in use, or an
    address of another machine)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise SettingsError(f"cannot listen on {url_of(host, port)}: "
                                f"{exc.strerror or exc}", subject="port") from None


def settings_env(settings: Settings) -> dict[str, str]:
    """The environment that makes `settings` in a worker (:meth:`Settings.from_env`)."""
    env: dict[str, str] = {}
    for f in fields(settings):
        value = getattr(settings, f.name)
        if value is None:
            continue
        env[ENV_PREFIX + f.name.upper()] = (("1" if value else "0") if isinstance(value, bool)
                                            else ",".join(value) if isinstance(value, tuple)
                                            else str(value))
    return env


HEAD_LIMIT = 16 * 1024
"""The most bytes of a request's head (its request line and headers) the server reads: a
longer head is refused with 400 before the application (docs/web.md)."""
_HEAD_END = re.compile(rb"\r?\n\r?\n")


class NoDelayH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol (h11) with TCP_NODELAY on every connection, and a request
    head over :data:`HEAD_LIMIT` refused.

    With several workers uvicorn binds the socket itself as ``socket.socket(family)``, whose
    protocol number is 0, and asyncio then leaves Nagle's algorithm on for the connections it
    accepts: a keep-alive answer, written as its headers then its body, waited for the
    client's delayed ACK, 40 ms a request. Set here, the option holds for one worker or
    several (the class is imported by name in each worker).

    h11's own limit (``max_incomplete_event_size``, 16 KiB) holds only for a head still
    incomplete: a longer one that arrives whole, or whose last piece completes it, was read.
    Here the head is measured as it comes, and one over the limit gets uvicorn's own answer
    to a request it cannot read (400, ``text/plain``, "Invalid HTTP request received.")."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:  # a request's head is being read
            buffered = self.conn.trailing_data[0] + data
            end = _HEAD_END.search(buffered)
            if (end.end() if end is not None else len(buffered)) > HEAD_LIMIT:
                message = "Invalid HTTP request received."
                self.logger.warning(message)
                self.send_400_response(message)
                return
        super().data_received(data)


def serve(settings: Settings, *, host: str = "127.0.0.1", port: int = 8000, workers: int = 1,
          log_level: str = "info", say: Callable[[str], None] | None = None) -> None:
    """Run the server until interrupted; `say` prints the addresses (and the QR code)."""
    import os

    import uvicorn

    check_port(host, port)
    say = say or (lambda line: print(line, file=sys.stderr))
    here = url_of("127.0.0.1" if host in ANY_HOSTS else host, port)
    say(f"mille-sabords: the advisor at {here} (Ctrl-C stops it)")
    if host in ANY_HOSTS:
        phone = phone_url(host, port)
        if phone is None:
            say("no network address found: phones cannot reach this machine")
        else:
            say(f"phones on the same network open {phone}")
            for line in qr_lines(phone):
                say(line)
    elif phone_url(host, port) is None:
        say("this machine only; --host 0.0.0.0 lets phones on the same network open it")
    if workers > 1:
        os.environ.update(settings_env(settings))
        uvicorn.run("solver.web:app", host=host, port=port, workers=workers,
                    log_level=log_level, http=NoDelayH11Protocol)
        return
    from .application import create_app

    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level,
                http=NoDelayH11Protocol)


__all__ = ["NoDelayH11Protocol", "allowed_hosts", "check_port", "network_addresses", "phone_url",
           "qr_lines", "serve", "settings_env", "url_of"]
