"""What a child process we start (the Claude Code CLI, an MCP server) may inherit from the
run's environment: the system basics — paths, locale, temp folders, proxies, CA bundles, the
Windows essentials — and nothing else, so API keys and other secrets only reach a child that
is explicitly given them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

SYSTEM_VARIABLES = frozenset(
    {
        "PATH",
        "USER",
        "LOGNAME",
        "SHELL",
        "TERM",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
        "REQUESTS_CA_BUNDLE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "no_proxy",
        # Windows needs these to start anything at all.
        "SYSTEMROOT",
        "SYSTEMDRIVE",
        "WINDIR",
        "COMSPEC",
        "PATHEXT",
        "APPDATA",
        "LOCALAPPDATA",
        "USERPROFILE",
        "USERNAME",
        "HOMEDRIVE",
        "HOMEPATH",
        "PROGRAMDATA",
        "PROGRAMFILES",
    }
)
#: Locale settings come as a family of variables.
SYSTEM_PREFIXES = ("LC_",)


def inherited(
    env: Mapping[str, str],
    *,
    also: Iterable[str] = (),
    prefixes: tuple[str, ...] = (),
    withheld: Iterable[str] = (),
) -> dict[str, str]:
    """The variables of `env` a child may see: the system basics, the names in `also`, those
    starting with one of `prefixes`, minus `withheld`."""
    names = SYSTEM_VARIABLES | frozenset(also)
    starts = SYSTEM_PREFIXES + prefixes
    blocked = frozenset(withheld)
    return {
        key: value
        for key, value in env.items()
        if (key in names or key.startswith(starts)) and key not in blocked
    }
