"""fetch_url: GET one web page as readable text, bounded in size and time, never with credentials.

Where it may go: http(s) only; no user:password in the URL; the host is resolved and every
address checked, and a loopback, private, link-local or otherwise internal address is refused
unless the profile's `[fetch] allow_private` is on. The connection goes to the address that
was checked (the name is kept for the Host header and TLS), so a DNS answer that changes
between the check and the request cannot move it inside. Each redirect is checked the same
way; one that leaves for a host not yet approved stops and says where it leads. Who decides:
the first request to a host asks (unless the host is on `[fetch] allow_hosts`); later ones
to that host in the session do not. What comes back: HTML as text (`tools/webtext`), text and
JSON as they are; other content types are refused.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_str

MAX_REDIRECTS = 5
MAX_URL = 2000
USER_AGENT = "agentcli-fetch/1 (+https://github.com/)"
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/javascript",
               "application/x-yaml", "application/toml")


def _fail(message: str, hint: str = "Fetch a public http(s) URL.") -> ToolFailure:
    return ToolFailure.of(ErrorCode.PERMISSION, message, hint)


def parse_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a URL fetch_url may try, or a refusal."""
    if len(url) > MAX_URL or any(ord(c) < 33 for c in url):
        raise ToolFailure.of(ErrorCode.VALIDATION, "the URL is too long or contains spaces or control characters",
                             "Pass one URL, percent-encoded.", argument="url")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise _fail(f"only http and https URLs can be fetched, not {parts.scheme or 'a relative URL'!r}")
    if parts.username is not None or parts.password is not None:
        raise _fail("URLs with a user name or password are refused: fetch_url never sends credentials",
                    "Fetch a URL without credentials.")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise ToolFailure.of(ErrorCode.VALIDATION, "the URL has no host", "Pass a full URL like https://example.org/.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise ToolFailure.of(ErrorCode.VALIDATION, "the URL's port is not a number", "Fix the URL.") from None
    return parts.scheme, host, port


def address_problem(ip: str) -> str | None:
    """Why this address is internal (not reachable from the public internet), or None."""
    import ipaddress

    addr = ipaddress.ip_address(ip)
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    for attr, what in (("is_loopback", "loopback"), ("is_private", "private"), ("is_link_local", "link-local"),
                       ("is_multicast", "multicast"), ("is_reserved", "reserved"), ("is_unspecified", "unspecified")):
        if getattr(addr, attr):
            return what
    if not addr.is_global:
        return "not public"
    return None


def resolve(host: str, port: int) -> list[str]:
    """Every address the name resolves to (an IP literal is itself)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ToolFailure.of(ErrorCode.NOT_FOUND, f"cannot resolve {host!r}: {exc}", "Check the host name.") from None
    return list(dict.fromkeys(str(i[4][0]) for i in infos))


def host_allowed(host: str, patterns: list[str]) -> bool:
    for p in patterns:
        p = p.strip().lower().rstrip(".")
        if p == host or (p.startswith("*.") and (host == p[2:] or host.endswith(p[1:]))):
            return True
    return False


class FetchUrl(BuiltinTool):
    spec = Tool(
        name="fetch_url",
        description=(
            "Fetch one web page (HTTP GET) and get it as readable text: HTML is converted to text with its links, "
            "text and JSON come as they are.\n"
            "Use it when: the task needs documentation, an API reference, an issue or a page the user names.\n"
            "Do not use it for files in the workspace (read_file), or to send data: it only reads. Edge cases: "
            "the first request to each host is approved by the user; local and private addresses are refused "
            "unless the profile allows them; no cookies or credentials are sent; big pages are cut.\n"
            'Example: {"url": "https://docs.python.org/3/library/html.parser.html"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "The http(s) URL to fetch."},
            },
            "required": ["url"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
        needs_approval=True,  # the first request per host asks (see judge)
    )
    changes_files = False

    @staticmethod
    def _approved(ctx: ToolContext) -> set[str]:
        return ctx.kept("fetch_url.hosts", set)

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        url = arg_str(args, "url").strip()
        _, host, _ = parse_url(url)
        allow = ctx.fetch.allow_hosts if ctx.fetch else []
        if host in self._approved(ctx) or host_allowed(host, allow):
            return Judgement.allow(f"GET {url}")
        import ipaddress

        try:
            literal = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None and address_problem(str(literal)) and not (ctx.fetch and ctx.fetch.allow_private):
            raise _fail(f"{host} is an internal address; fetch_url reaches only public hosts here",
                        "Ask the user to set allow_private = true under [profiles.NAME.fetch] for a local server.")
        return Judgement.ask(f"GET {url}\n(the first request to {host} in this session; later ones are not asked)")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        import asyncio

        url = arg_str(args, "url").strip()
        timeout = ctx.fetch.timeout_seconds if ctx.fetch else 20.0
        try:
            final, ctype, body, cut = await asyncio.wait_for(self._get(url, ctx), timeout)
        except TimeoutError:
            raise ToolFailure.of(ErrorCode.TIMEOUT, f"{url} did not answer within {timeout:g} s",
                                 "Try again later or another page.") from None
        self._approved(ctx).add(parse_url(url)[1])
        text = body.decode(_charset(ctype), errors="replace")
        if "html" in ctype:
            from agentcli.tools.webtext import html_to_text

            text = html_to_text(text, final)
        head = f"URL: {final}\nContent-Type: {ctype or 'unknown'}\n\n"
        room = max(200, ctx.budget - len(head.encode()) - 200)
        data = text.encode("utf-8")
        if len(data) > room or cut:
            shown = data[:room].decode("utf-8", errors="ignore")
            return head + shown + f"\n[... page cut at {len(shown)} of {len(data)}{'+' if cut else ''} bytes ...]"
        return head + text

    async def _get(self, url: str, ctx: ToolContext) -> tuple[str, str, bytes, bool]:
        import httpx

        limit = ctx.fetch.max_bytes if ctx.fetch else 2_000_000
        allow_private = bool(ctx.fetch and ctx.fetch.allow_private)
        first_host = parse_url(url)[1]
        async with httpx.AsyncClient(trust_env=False, follow_redirects=False, timeout=10.0) as client:
            for _ in range(MAX_REDIRECTS + 1):
                scheme, host, port = parse_url(url)
                allowed_hosts = ctx.fetch.allow_hosts if ctx.fetch else []
                if host != first_host and host not in self._approved(ctx) and not host_allowed(host, allowed_hosts):
                    raise ToolFailure.of(ErrorCode.PERMISSION, f"the page redirects to another host: {url}",
                                         "Call fetch_url with that URL (the user approves the new host).")
                ip = await asyncio_resolve(host, port, allow_private)
                parts = urlsplit(url)
                netloc = (f"[{ip}]" if ":" in ip else ip) + (f":{parts.port}" if parts.port else "")
                target = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
                headers = {"Host": parts.netloc.rsplit("@", 1)[-1], "User-Agent": USER_AGENT,
                           "Accept-Encoding": "gzip, deflate",
                           "Accept": "text/html, text/*;q=0.9, application/json;q=0.8, */*;q=0.1"}
                try:
                    async with client.stream("GET", target, headers=headers,
                                             extensions={"sni_hostname": host}) as resp:
                        if resp.is_redirect and "location" in resp.headers:
                            url = str(httpx.URL(url).join(resp.headers["location"]))
                            continue
                        ctype = resp.headers.get("content-type", "").lower()
                        if resp.status_code >= 400:
                            raise ToolFailure.of(ErrorCode.NOT_FOUND if resp.status_code == 404 else ErrorCode.EXECUTION,
                                                 f"{url} answered HTTP {resp.status_code}", "Check the URL.")
                        if ctype and not ctype.startswith(_TEXT_TYPES):
                            raise ToolFailure.of(ErrorCode.VALIDATION, f"{url} is {ctype.split(';')[0]}, not text",
                                                 "fetch_url reads text and HTML pages only.")
                        body, cut = bytearray(), False
                        async for chunk in resp.aiter_raw():
                            body += chunk
                            if len(body) > limit:
                                del body[limit:]
                                cut = True
                                break
                        return url, ctype, bytes(_decoded(body, resp.headers.get("content-encoding", ""))), cut
                except httpx.HTTPError as exc:
                    raise ToolFailure.of(ErrorCode.NETWORK, f"could not fetch {url}: {type(exc).__name__}: {exc}",
                                         "Check the URL, or try again later.") from None
        raise ToolFailure.of(ErrorCode.EXECUTION, f"more than {MAX_REDIRECTS} redirects", "Fetch the final URL directly.")


async def asyncio_resolve(host: str, port: int, allow_private: bool) -> str:
    """The address to connect to: every address of the name is checked; the first is used."""
    import asyncio

    ips = await asyncio.to_thread(resolve, host.strip("[]"), port)
    if not allow_private:
        for ip in ips:
            why = address_problem(ip)
            if why:
                raise _fail(f"{host} resolves to a {why} address ({ip}); fetch_url reaches only public hosts here",
                            "Ask the user to set allow_private = true under [profiles.NAME.fetch] for a local server.")
    if not ips:
        raise ToolFailure.of(ErrorCode.NOT_FOUND, f"{host} has no address", "Check the host name.")
    return ips[0]


def _decoded(body: bytearray, encoding: str) -> bytes:
    """Raw bytes were read (so the size bound is on the wire); undo gzip/deflate within the same bound."""
    import zlib

    enc = encoding.strip().lower()
    if enc in ("gzip", "deflate"):
        try:
            d = zlib.decompressobj(wbits=47 if enc == "gzip" else 15)
            return d.decompress(bytes(body), 8 * len(body) + 65536)
        except zlib.error:
            return bytes(body)
    return bytes(body)


def _charset(ctype: str) -> str:
    for part in ctype.split(";")[1:]:
        k, _, v = part.strip().partition("=")
        if k.lower() == "charset" and v.strip().strip('"'):
            import codecs

            try:
                return codecs.lookup(v.strip().strip('"')).name
            except LookupError:
                return "utf-8"
    return "utf-8"


TOOL = FetchUrl()
