"""The proxies of the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, upper
or lower case), for a transport built by hand.

httpx reads them only for a client built without a `transport=`: as soon as the limiter's
transport is given, a client sends straight to the provider, and behind a corporate proxy
every request fails. This transport routes each request as httpx's `trust_env` would: through
the proxy of its scheme (else `ALL_PROXY`), straight when `NO_PROXY` names its host.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

# urllib.request is imported by the functions that read the proxies: it brings http.client
# and email's parser, which a replayed run, the checker and the editor's start never need
# (docs/benchmarks.md, "Start-up cost, issue 37 item 7").


def environment_proxies() -> dict[str, str]:
    """`scheme -> proxy URL` (plus `no`, the bypass list) from the environment now."""
    import urllib.request

    found = urllib.request.getproxies_environment()
    return {
        scheme: url if "://" in url or scheme == "no" else f"http://{url}"
        for scheme, url in found.items()
        if url
    }


def proxy_for(url_scheme: str, host: str, proxies: dict[str, str]) -> str | None:
    """The proxy a request to `url_scheme://host` goes through, or None (straight)."""
    proxy = proxies.get(url_scheme) or proxies.get("all")
    if proxy is None:
        return None
    import urllib.request

    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if "no" in proxies and bypass(host, proxies):
        return None
    return proxy


def env_proxy_transport(module: ModuleType) -> Any:
    """An `AsyncBaseTransport` of `module` (httpx or httpx2) that honours the environment's
    proxies; without any, the plain transport (nothing to route)."""
    proxies = environment_proxies()
    if not any(key in proxies for key in ("http", "https", "all")):
        return module.AsyncHTTPTransport()
    return _router_class(module)(module, proxies)


_classes: dict[str, type] = {}


def _router_class(module: ModuleType) -> type:
    cls = _classes.get(module.__name__)
    if cls is not None:
        return cls
    base: type = module.AsyncBaseTransport

    class EnvProxyTransport(base):  # type: ignore[misc]
        def __init__(self, module: ModuleType, proxies: dict[str, str]) -> None:
            self._module = module
            self._proxies = proxies
            self._direct: Any = None
            self._via: dict[str, Any] = {}

        def _transport(self, url: Any) -> Any:
            proxy = proxy_for(str(url.scheme), str(url.host), self._proxies)
            if proxy is None:
                if self._direct is None:
                    self._direct = self._module.AsyncHTTPTransport()
                return self._direct
            if proxy not in self._via:
                self._via[proxy] = self._module.AsyncHTTPTransport(proxy=proxy)
            return self._via[proxy]

        async def handle_async_request(self, request: Any) -> Any:
            return await self._transport(request.url).handle_async_request(request)

        async def aclose(self) -> None:
            for transport in [self._direct, *self._via.values()]:
                if transport is not None:
                    await transport.aclose()

    _classes[module.__name__] = EnvProxyTransport
    return EnvProxyTransport
