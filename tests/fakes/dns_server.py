"""A real DNS server on 127.0.0.1, over UDP and TCP on one port, answering TXT
questions from a dict, built with dnspython's message classes: what a domain's
DNS host would say of `_builtit.<domain>`. Tests point BUILTIT_DNS_SERVERS at
it (tests/conftest.py shares one per session).

A name may also be made to fail (SERVFAIL, REFUSED) or to stay silent (the
resolver times out). An answer too large for UDP is sent truncated, and the
resolver asks again over TCP, as with a real server.

`python -m tests.fakes.dns_server --port 5353 --txt _builtit.shop.example=v`
runs it in the foreground, for trying the app by hand.
"""

from __future__ import annotations

import argparse
import socket
import socketserver
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import dns.exception
import dns.flags
import dns.message
import dns.name
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rrset

_UDP_LIMIT = 512  # bytes, without EDNS


class FakeDNS:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._txt: dict[str, list[str]] = {}
        self._failing: dict[str, dns.rcode.Rcode] = {}
        self._silent: set[str] = set()
        self.asked: list[tuple[str, str]] = []  # (name, "udp" or "tcp")
        self._udp: socketserver.UDPServer | None = None
        self._tcp: socketserver.TCPServer | None = None
        self.port = 0

    # --- what it answers ---------------------------------------------------------

    def set_txt(self, name: str, *values: str) -> None:
        """`name` holds these TXT values (none: the name has no record)."""
        with self._lock:
            self._txt[_key(name)] = list(values)

    def add_txt(self, name: str, value: str) -> None:
        with self._lock:
            self._txt.setdefault(_key(name), []).append(value)

    def fail(self, name: str, rcode: dns.rcode.Rcode = dns.rcode.SERVFAIL) -> None:
        with self._lock:
            self._failing[_key(name)] = rcode

    def silence(self, name: str) -> None:
        """Questions about `name` are never answered."""
        with self._lock:
            self._silent.add(_key(name))

    def clear(self) -> None:
        with self._lock:
            self._txt.clear()
            self._failing.clear()
            self._silent.clear()
            self.asked.clear()

    def asked_about(self, name: str) -> int:
        with self._lock:
            return sum(1 for asked, _ in self.asked if asked == _key(name))

    @property
    def address(self) -> str:
        """As BUILTIT_DNS_SERVERS names it."""
        return f"127.0.0.1:{self.port}"

    # --- serving -----------------------------------------------------------------

    def answer(self, wire: bytes, transport: str) -> bytes | None:
        """The answer to the question in `wire`, or None for no answer at all."""
        try:
            query = dns.message.from_wire(wire)
        except dns.exception.DNSException:
            return None
        if not query.question:
            return None
        question = query.question[0]
        name = _key(question.name.to_text())
        with self._lock:
            self.asked.append((name, transport))
            if name in self._silent:
                return None
            failing = self._failing.get(name)
            values = list(self._txt.get(name, [])) if name in self._txt else None
        response = dns.message.make_response(query)
        response.flags |= dns.flags.RA
        if failing is not None:
            response.set_rcode(failing)
        elif values is None:
            response.set_rcode(dns.rcode.NXDOMAIN)
        elif question.rdtype == dns.rdatatype.TXT and values:
            response.answer.append(_txt_rrset(question.name, values))
        limit = 65535 if transport == "tcp" else max(_UDP_LIMIT, query.payload)
        try:
            return response.to_wire(max_size=limit)
        except dns.exception.TooBig:
            response.answer.clear()
            response.flags |= dns.flags.TC
            return response.to_wire()

    def start(self, port: int = 0) -> None:
        """Serve on `port` (0: any free one) until `stop`."""
        fake = self

        class Udp(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                data, sock = self.request
                reply = fake.answer(data, "udp")
                if reply is not None:
                    sock.sendto(reply, self.client_address)

        class Tcp(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                sock: socket.socket = self.request
                head = _read_exactly(sock, 2)
                if head is None:
                    return
                data = _read_exactly(sock, struct.unpack("!H", head)[0])
                reply = fake.answer(data, "tcp") if data is not None else None
                if reply is not None:
                    sock.sendall(struct.pack("!H", len(reply)) + reply)

        # One port for both, as a real server: UDP first, then TCP on its port
        # (taken by chance now and then: then another pair).
        for _ in range(1 if port else 20):
            udp = socketserver.ThreadingUDPServer(("127.0.0.1", port), Udp)
            try:
                tcp = socketserver.ThreadingTCPServer(("127.0.0.1", udp.server_address[1]), Tcp)
            except OSError:
                udp.server_close()
                continue
            break
        else:
            raise RuntimeError("no free port for the fake DNS server")
        udp.daemon_threads = tcp.daemon_threads = True
        self._udp, self._tcp, self.port = udp, tcp, int(udp.server_address[1])
        for server in (udp, tcp):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        for server in (self._udp, self._tcp):
            if server is not None:
                server.shutdown()
                server.server_close()


@contextmanager
def running() -> Iterator[FakeDNS]:
    fake = FakeDNS()
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()


def _key(name: str) -> str:
    return name.lower().rstrip(".")


def _txt_rrset(name: dns.name.Name, values: list[str]) -> dns.rrset.RRset:
    # Each value as quoted strings of at most 255 bytes, as zone files write long ones.
    texts = []
    for value in values:
        raw = value.encode()
        chunks = [raw[start : start + 255] for start in range(0, len(raw), 255)] or [b""]
        texts.append(" ".join('"' + chunk.decode().replace('"', '\\"') + '"' for chunk in chunks))
    return dns.rrset.from_text_list(name, 300, dns.rdataclass.IN, dns.rdatatype.TXT, texts)


def _read_exactly(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=5353)
    parser.add_argument("--txt", action="append", default=[], metavar="NAME=VALUE")
    arguments = parser.parse_args()
    fake = FakeDNS()
    for item in arguments.txt:
        name, _, value = item.partition("=")
        fake.add_txt(name, value)
    fake.start(arguments.port)
    print(f"Fake DNS on {fake.address}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
