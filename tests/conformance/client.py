"""The MCP conformance suite's client under test, written against mcpsync's public API.

The suite (``@modelcontextprotocol/conformance``, client mode) starts a server
for one scenario and runs this program with the server's URL as the last
argument; ``MCP_CONFORMANCE_SCENARIO`` names the scenario,
``MCP_CONFORMANCE_CONTEXT`` carries JSON the scenario hands the client
(credentials, say), and ``MCP_CONFORMANCE_PROTOCOL_VERSION`` the revision to
speak: through 2025-11-25 the ``initialize`` handshake, 2026-07-28 the
stateless protocol. Each handler does what a person's program would do with
mcpsync: connect, list, call; where a person would log in in a browser, the
program follows the authorization URL itself (one GET, no redirects followed)
and hands back the address it was sent to, as the official SDKs' conformance
clients do.

    python tests/conformance/client.py http://localhost:3000/mcp
"""

from __future__ import annotations

import json
import logging
import os
import sys
from typing import Any, Callable

import requests

import mcpsync

#: The client ID metadata document URL the suite's authorization servers accept as a client_id.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
#: The redirect URI the suite's authorization servers expect of a pre-registered client.
REDIRECT_URI = "http://localhost:3000/callback"
#: Seconds for connecting and for each request.
TIMEOUT = 20.0

Handler = Callable[[str], None]
HANDLERS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    """Register a handler for the scenarios ``names``."""

    def register(handler: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = handler
        return handler

    return register


def protocol() -> str:
    """``protocol=`` for ``mcpsync.connect``: the stateless revision asked for, else the handshake."""
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
    if not version:
        return "auto"
    return "legacy" if version in mcpsync.SUPPORTED_PROTOCOL_VERSIONS else version


def context() -> dict[str, Any]:
    """The scenario's ``MCP_CONFORMANCE_CONTEXT`` (``{}`` when it gives none)."""
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    return json.loads(raw) if raw else {}


def connect(url: str, **options: Any) -> mcpsync.Client:
    """The connected client, in the era the suite asks for."""
    options.setdefault("auth", False)
    return mcpsync.connect(
        url,
        timeout=TIMEOUT,
        protocol=protocol(),
        client_info={"name": "mcpsync-conformance", "version": "1"},
        **options,
    )


def follow_authorization(url: str) -> str:
    """The person's part of a login: open the authorization URL (no redirects followed) and return
    the address the authorization server sends the browser to."""
    response = requests.get(url, allow_redirects=False, timeout=TIMEOUT)
    location = response.headers.get("Location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise RuntimeError(f"the authorization server answered {response.status_code} without a redirect")
    return location


# -- the plain scenarios ------------------------------------------------------------------------


@handles("initialize", "request-metadata", "json-schema-ref-no-deref")
def list_tools(url: str) -> None:
    """Connect and list the tools."""
    with connect(url) as client:
        for tool in client.list_tools():
            print(tool.name, json.dumps(tool.input_schema))


@handles("tools_call")
def tools_call(url: str) -> None:
    """Add two numbers."""
    with connect(url) as client:
        print(client.call_tool("add_numbers", {"a": 5, "b": 3}).text)


@handles("json-schema-2020-12-preservation")
def schema_echo(url: str) -> None:
    """Hand each tool's inputSchema, as mcpsync gives it, to the server's echo tool."""
    with connect(url) as client:
        tools = client.list_tools()
        echo = next(tool for tool in tools if tool.name == "json_schema_echo")
        for tool in tools:
            if tool is not echo:
                print(client.call_tool(echo.name, {"schema": tool.input_schema}).text)


@handles("sse-retry")
def sse_retry(url: str) -> None:
    """A tool whose answer comes after the server broke the stream once."""
    with connect(url) as client:
        print(client.call_tool("test_reconnection", {}).text)


@handles("elicitation-sep1034-client-defaults", "sep-2322-client-request-state")
def elicitation(url: str) -> None:
    """Call each tool; a form the server asks for is accepted with its defaults."""

    def accept_defaults(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": mcpsync.elicitation_defaults(params.get("requestedSchema") or {})}

    with connect(url, elicitation=accept_defaults) as client:
        for tool in client.list_tools():
            print(tool.name, client.call_tool(tool.name, {}).text)


@handles("http-standard-headers", "http-custom-headers", "http-invalid-tool-headers")
def headers(url: str) -> None:
    """Call the tools the scenario names with its arguments; without a list, every tool the client
    offers, with an example value for each required parameter."""
    examples = {"string": "us-west", "integer": 3, "boolean": True, "number": 1.5}
    with connect(url) as client:
        tools = client.list_tools()
        calls = context().get("toolCalls") or [
            {
                "name": tool.name,
                "arguments": {
                    name: examples.get(spec.get("type"), "x")
                    for name, spec in (tool.input_schema.get("properties") or {}).items()
                    if name in (tool.input_schema.get("required") or ())
                },
            }
            for tool in tools
        ]
        for call in calls:
            print(call["name"], client.call_tool(call["name"], call["arguments"]).text)


# -- skills ---------------------------------------------------------------------------------------


@handles("sep-2640-client-no-prefetch")
def skills_catalogue(url: str) -> None:
    """Show the skills the server offers (reading none of their files)."""
    with connect(url) as client:
        for skill in client.list_skills():
            print(skill.name, skill.description)


@handles("sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter")
def skills_use(url: str) -> None:
    """Load the first skill and read the file its SKILL.md points to; a skill that fails its checks is refused."""
    with connect(url) as client:
        skill = client.list_skills()[0]
        try:
            loaded = client.load_skill(skill)
        except mcpsync.SkillVerificationError as exc:
            print("refused:", exc)
            return
        print(loaded.read("references/FORMS.md"))


# -- authorization --------------------------------------------------------------------------------


def use_protected(url: str, auth: Any) -> None:
    """List the tools of a protected server, and call the first."""
    with connect(url, auth=auth) as client:
        tools = client.list_tools()
        print([tool.name for tool in tools])
        if tools:
            print(client.call_tool(tools[0].name, {}).text)


@handles(
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/dpop",
    "auth/dpop-nonce",
)
def authorization_code(url: str) -> None:
    """A person's login (the authorization code flow), with a pre-registered client when there is one."""
    given = context()
    auth = mcpsync.OAuth(
        client_id=given.get("client_id"),
        client_secret=given.get("client_secret"),
        client_metadata_url=CLIENT_METADATA_URL,
        redirect_uri=REDIRECT_URI,
        on_authorize=follow_authorization,
        store=mcpsync.MemoryTokenStore(),
        client_name="mcpsync-conformance",
    )
    use_protected(url, auth)


@handles("auth/client-credentials-basic", "auth/client-credentials-jwt")
def client_credentials(url: str) -> None:
    """A service with its own credentials: a secret, or a private key."""
    given = context()
    auth = mcpsync.ClientCredentials(
        given["client_id"],
        given.get("client_secret"),
        private_key=given.get("private_key_pem"),
        algorithm=given.get("signing_algorithm"),
    )
    use_protected(url, auth)


@handles("auth/wif-jwt-bearer")
def workload_identity(url: str) -> None:
    """A workload with the identity token its platform gave it."""
    given = context()
    use_protected(url, mcpsync.WorkloadIdentity(given["client_id"], lambda: given["valid_jwt"]))


@handles("auth/enterprise-managed-authorization")
def enterprise(url: str) -> None:
    """A user of an enterprise identity provider: its ID token, exchanged for access to the server."""
    given = context()
    auth = mcpsync.EnterpriseAuth(
        id_token=given["idp_id_token"],
        idp_token_endpoint=given["idp_token_endpoint"],
        idp_client_id=given["idp_client_id"],
        client_id=given["client_id"],
        client_secret=given.get("client_secret"),
    )
    use_protected(url, auth)


def main() -> int:
    logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    handler = HANDLERS.get(scenario)
    if handler is None:
        print(f"no handler for scenario {scenario!r}", file=sys.stderr)
        return 2
    handler(sys.argv[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
