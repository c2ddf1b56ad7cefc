"""The token endpoint as ``tokens`` speaks to it: what each client authentication sends, what a
DPoP nonce retry sends, which answers are refused and how, and the record kept of a token.

Against a scripted token endpoint on 127.0.0.1 that records every request; the whole flows are in
``test_oauth_flows.py`` and ``test_grants.py``. These pin what the flows do not look at: the exact
form and headers sent, the text, ``server`` and ``error`` of each refusal, and every field of a record.
"""

from __future__ import annotations

import base64
import http.server
import json
import time
from collections.abc import Iterator
from typing import Any, Optional
from urllib.parse import parse_qs

import pytest
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey

from mcpsync import AuthorizationError
from mcpsync._auth.discovery import AuthServer, Discovered
from mcpsync._auth.dpop import DPoPKey
from mcpsync._auth.http import AuthHTTP
from mcpsync._auth.tokens import ClientInfo, GrantRequest, load_private_key, record_from_response, request_token
from tests.helpers import served

T = 10.0
TOKEN = {"access_token": "at", "token_type": "Bearer", "expires_in": 3600}


class TokenEndpoint(http.server.ThreadingHTTPServer):
    """A token endpoint that answers each POST with the next of ``answers`` (status, JSON object or
    raw bytes, headers), or the last one again; each request is kept in ``seen`` (its headers and
    its form, every field's values as a list)."""

    daemon_threads = True

    def __init__(self) -> None:
        self.answers: list[tuple[int, Any, dict[str, str]]] = [(200, TOKEN, {})]
        self.seen: list[dict[str, Any]] = []
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                endpoint.seen.append({"headers": dict(self.headers), "form": parse_qs(body, keep_blank_values=True)})
                index = min(len(endpoint.seen), len(endpoint.answers)) - 1
                status, answer, headers = endpoint.answers[index]
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/token"
        self.issuer = f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def endpoint() -> Iterator[TokenEndpoint]:
    with served(TokenEndpoint()) as server:
        yield server


GRANT = {"grant_type": "authorization_code", "code": "c0de", "code_verifier": "v"}


def _request(endpoint: TokenEndpoint, client: Optional[ClientInfo], **kwargs: Any) -> dict[str, Any]:
    with AuthHTTP("srv", endpoint.url, deadline=time.monotonic() + T) as http_:
        return request_token(
            http_, endpoint.url, client, dict(GRANT), issuer=kwargs.pop("issuer", endpoint.issuer), **kwargs
        )


def _refused(endpoint: TokenEndpoint, client: Optional[ClientInfo] = None, **kwargs: Any) -> AuthorizationError:
    with pytest.raises(AuthorizationError) as raised:
        _request(endpoint, client, **kwargs)
    return raised.value


def _form(seen: dict[str, Any]) -> dict[str, str]:
    """A request's form, one value per field (a field sent twice fails the test)."""
    assert all(len(values) == 1 for values in seen["form"].values()), seen["form"]
    return {name: values[0] for name, values in seen["form"].items()}


def test_client_secret_basic_sends_the_secret_in_the_header_and_the_client_id_in_the_form(endpoint):
    """``client_secret_basic``: HTTP Basic with the id and the secret (RFC 6749 §2.3.1), never the
    secret in the body; the ``client_id`` is added to the form all the same (servers want it)."""
    answer = _request(endpoint, ClientInfo("svc", "s3cret", "client_secret_basic"))
    assert answer == TOKEN
    (seen,) = endpoint.seen
    assert seen["headers"]["Authorization"] == "Basic " + base64.b64encode(b"svc:s3cret").decode()
    assert _form(seen) == {**GRANT, "client_id": "svc"}
    assert seen["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
    assert seen["headers"]["Accept"] == "application/json"


def test_client_secret_post_sends_the_id_and_secret_in_the_form_once(endpoint):
    """``client_secret_post``: both in the form, each once, and no ``Authorization`` header."""
    _request(endpoint, ClientInfo("svc", "s3cret", "client_secret_post"))
    (seen,) = endpoint.seen
    assert "Authorization" not in seen["headers"]
    assert _form(seen) == {**GRANT, "client_id": "svc", "client_secret": "s3cret"}


def test_a_public_client_sends_its_id_only_and_no_client_sends_nothing_of_its_own(endpoint):
    """A public client (``none``) sends its ``client_id`` in the form and no secret; a request with
    no client (a refresh a flow makes itself) sends the form as given, with no ``Authorization``."""
    _request(endpoint, ClientInfo("pub"))
    _request(endpoint, None)
    public, bare = endpoint.seen
    assert _form(public) == {**GRANT, "client_id": "pub"} and "Authorization" not in public["headers"]
    assert _form(bare) == GRANT and "Authorization" not in bare["headers"]


@pytest.mark.parametrize("kind", ["EC", "RSA"])
def test_private_key_jwt_signs_an_assertion_for_the_issuer(endpoint, kind):
    """``private_key_jwt`` with a PEM key: an assertion signed with ES256 for an EC key, RS256 for RSA,
    naming the client as ``iss`` and ``sub`` and the issuer (not the token endpoint's URL) as ``aud``;
    the ``client_id`` is in the form too, and no ``Authorization`` header is sent."""
    key = ECKey.generate_key("P-256") if kind == "EC" else RSAKey.generate_key(2048)
    client = ClientInfo("svc", None, "private_key_jwt")
    _request(endpoint, client, private_key=key.as_pem(private=True).decode(), issuer="https://issuer.example")
    (seen,) = endpoint.seen
    form = _form(seen)
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert form["client_id"] == "svc" and "Authorization" not in seen["headers"]
    token = jwt.decode(form["client_assertion"], key)
    assert token.header["alg"] == ("ES256" if kind == "EC" else "RS256")
    assert token.claims["iss"] == token.claims["sub"] == "svc"
    assert token.claims["aud"] == "https://issuer.example"


def test_private_key_jwt_needs_a_key_and_an_issuer_and_an_unknown_method_is_refused(endpoint):
    """Without a key, or without the issuer (the assertion's audience), ``private_key_jwt`` is refused
    before anything is sent, saying what is missing; so is a method nobody knows."""
    key = ECKey.generate_key("P-256")
    client = ClientInfo("svc", None, "private_key_jwt")
    assert "needs a private key (private_key=...)" in str(_refused(endpoint, client))
    error = _refused(endpoint, client, private_key=key, algorithm="ES256", issuer=None)
    assert "needs the authorization server's issuer" in str(error)
    error = _refused(endpoint, ClientInfo("svc", "s", "client_secret_jwt"))
    assert str(error) == "unknown token endpoint auth method 'client_secret_jwt'"
    assert endpoint.seen == []


def test_a_use_dpop_nonce_answer_is_retried_once_with_the_nonce_and_a_fresh_assertion(endpoint):
    """A ``400 use_dpop_nonce`` with a ``DPoP-Nonce``: the request is sent again once, its proof
    carrying the nonce, its client assertion new (a unique ``jti``). A second such answer is the
    refusal, with the server's error code; no third request."""
    nonce = (400, {"error": "use_dpop_nonce"}, {"DPoP-Nonce": "n-1"})
    endpoint.answers = [nonce, (200, {**TOKEN, "token_type": "DPoP"}, {})]
    key = ECKey.generate_key("P-256")
    client = ClientInfo("svc", None, "private_key_jwt")
    dpop = DPoPKey()
    answer = _request(endpoint, client, private_key=key, algorithm="ES256", dpop=dpop)
    assert answer["token_type"] == "DPoP"
    first, second = endpoint.seen
    assert "nonce" not in jwt.decode(first["headers"]["DPoP"], ECKey.import_key(_jwk(first))).claims
    proof = jwt.decode(second["headers"]["DPoP"], ECKey.import_key(_jwk(second))).claims
    assert proof["nonce"] == "n-1" and proof["htm"] == "POST" and proof["htu"] == endpoint.url
    jtis = {jwt.decode(_form(s)["client_assertion"], key).claims["jti"] for s in (first, second)}
    assert len(jtis) == 2
    endpoint.seen.clear()
    endpoint.answers = [nonce]
    error = _refused(endpoint, client, private_key=key, algorithm="ES256", dpop=dpop)
    assert error.error == "use_dpop_nonce" and len(endpoint.seen) == 2


def _jwk(seen: dict[str, Any]) -> dict[str, Any]:
    header = seen["headers"]["DPoP"].split(".")[0]
    return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["jwk"]


@pytest.mark.parametrize(
    "answer",
    [(400, {"error": "use_dpop_nonce"}, {}), (401, {"error": "use_dpop_nonce"}, {"DPoP-Nonce": "n"})],
)
def test_a_nonce_answer_is_not_retried_without_a_nonce_or_a_400(endpoint, answer):
    """No ``DPoP-Nonce`` header, or a status other than 400: refused at once, one request only."""
    endpoint.answers = [answer]
    error = _refused(endpoint, dpop=DPoPKey())
    assert error.error == "use_dpop_nonce" and len(endpoint.seen) == 1


def test_without_dpop_a_nonce_answer_is_a_refusal_and_no_proof_is_sent(endpoint):
    """A request without a DPoP key carries no ``DPoP`` header, and a ``use_dpop_nonce`` answer to it
    is not retried."""
    endpoint.answers = [(400, {"error": "use_dpop_nonce"}, {"DPoP-Nonce": "n"})]
    _refused(endpoint)
    assert len(endpoint.seen) == 1 and "DPoP" not in endpoint.seen[0]["headers"]


def test_a_refusal_names_the_endpoint_the_grant_and_the_servers_error(endpoint):
    """An OAuth error answer: the text names the server, the token endpoint, the grant type and the
    server's ``error: error_description``; ``error`` keeps the code. A non-string code is no code."""
    endpoint.answers = [(400, {"error": "invalid_grant", "error_description": "code used"}, {})]
    error = _refused(endpoint)
    assert str(error) == (
        f"srv: the token endpoint {endpoint.url} refused the authorization_code grant "
        "(HTTP 400, invalid_grant: code used)"
    )
    assert error.server == "srv" and error.error == "invalid_grant"
    endpoint.answers = [(400, {"error": 7}, {})]
    error = _refused(endpoint)
    assert error.error is None and "(HTTP 400)" in str(error)


@pytest.mark.parametrize("answer", [(200, b"not json", {}), (500, b"", {}), (302, TOKEN, {})])
def test_an_answer_that_is_not_a_successful_json_object_is_a_refusal(endpoint, answer):
    """A 200 that is not JSON, a 500 with no body, a success status outside 2xx: refused, no code."""
    endpoint.answers = [answer]
    error = _refused(endpoint)
    assert error.error is None and error.server == "srv"
    assert f"refused the authorization_code grant (HTTP {answer[0]})" in str(error)


@pytest.mark.parametrize("token", [None, "", 5])
def test_an_answer_without_an_access_token_is_refused(endpoint, token):
    """A success without a non-empty string ``access_token``: refused, naming the endpoint."""
    endpoint.answers = [(200, {"access_token": token, "token_type": "Bearer"}, {})]
    error = _refused(endpoint)
    assert str(error) == f"srv: the token endpoint {endpoint.url} sent no access_token" and error.server == "srv"


@pytest.mark.parametrize("token_type", ["Bearer", "bearer", "N_A", "dpop"])
def test_the_token_types_taken(endpoint, token_type):
    """Bearer and N_A in any case; DPoP when the request carried a proof."""
    endpoint.answers = [(200, {**TOKEN, "token_type": token_type}, {})]
    assert _request(endpoint, None, dpop=DPoPKey())["token_type"] == token_type


@pytest.mark.parametrize("token_type", [None, 1, "mac"])
def test_a_token_of_another_type_is_refused(endpoint, token_type):
    """A missing, non-string or unknown ``token_type`` (RFC 6749 makes it required): refused, saying it."""
    endpoint.answers = [(200, {**TOKEN, "token_type": token_type}, {})]
    error = _refused(endpoint)
    assert str(error) == f"srv: the token endpoint sent a token of type {token_type!r}" and error.server == "srv"


def test_a_dpop_token_to_a_request_without_a_proof_is_refused(endpoint):
    """A DPoP-bound token we could not use (no key of ours is bound to it): refused."""
    endpoint.answers = [(200, {**TOKEN, "token_type": "DPoP"}, {})]
    error = _refused(endpoint)
    assert str(error) == "srv: the token endpoint sent a DPoP token to a request without a proof"
    assert error.server == "srv"


def test_a_record_keeps_the_token_where_it_came_from_and_when_it_expires():
    """Every field of the record of a full answer: expiry from ``expires_in``, the scope granted,
    the scope asked, the origin of the token and the client, and no DPoP key for a Bearer token."""
    before = time.time()
    record = record_from_response(
        {"access_token": "at", "token_type": "bearer", "expires_in": 100, "refresh_token": "rt", "scope": "a"},
        issuer="https://as",
        resource="https://mcp",
        token_endpoint="https://as/token",
        client=ClientInfo("svc", "s", "client_secret_post"),
        scopes=("a", "b"),
        dpop=DPoPKey(),
    )
    after = time.time()
    assert before + 100 <= record.pop("expires_at") <= after + 100
    assert before <= record.pop("obtained_at") <= after
    assert record == {
        "access_token": "at",
        "token_type": "bearer",
        "refresh_token": "rt",
        "scope": "a",
        "requested_scope": "a b",
        "issuer": "https://as",
        "resource": "https://mcp",
        "token_endpoint": "https://as/token",
        "client_id": "svc",
        "client_auth_method": "client_secret_post",
        "dpop_key": None,
    }


def _bare_record(response: dict[str, Any]) -> dict[str, Any]:
    """The record of ``response`` for no client and no scopes."""
    return record_from_response(response, issuer="i", resource="r", token_endpoint="t", client=None, scopes=())


@pytest.mark.parametrize("expires_in", [None, 0, -5, True, "3600"])
def test_a_record_without_a_usable_lifetime_has_no_expiry(expires_in):
    """``expires_in`` missing, not positive, a boolean or a string: the record has no ``expires_at``."""
    record = _bare_record({"access_token": "at", "expires_in": expires_in})
    assert record["expires_at"] is None


def test_a_refresh_token_not_rotated_is_kept_and_defaults_fill_the_rest():
    """An answer without a (non-empty) refresh token keeps the previous one; without a scope, the
    scopes asked are the scope; without a type, ``Bearer``; without a client, no client fields; a
    DPoP token keeps its key."""
    dpop = DPoPKey()
    for refresh in (None, ""):
        record = record_from_response(
            {"access_token": "at", "refresh_token": refresh, "token_type": "DPoP"},
            issuer="i",
            resource="r",
            token_endpoint="t",
            client=None,
            scopes=("x", "y"),
            previous={"refresh_token": "old"},
            dpop=dpop,
        )
        assert record["refresh_token"] == "old"
        assert record["scope"] == "x y" and record["client_id"] is None and record["client_auth_method"] is None
        assert record["dpop_key"] == dpop.to_store()
    record = record_from_response(
        {"access_token": "at"}, issuer="i", resource="r", token_endpoint="t", client=None, scopes=()
    )
    assert record["token_type"] == "Bearer" and record["refresh_token"] is None and record["scope"] == ""


@pytest.mark.parametrize("kind", ["EC", "RSA"])
def test_a_private_key_is_read_from_pem_with_its_algorithm(kind):
    """An EC key signs with ES256 and an RSA key with RS256 unless an algorithm is given."""
    key = ECKey.generate_key("P-256") if kind == "EC" else RSAKey.generate_key(2048)
    pem = key.as_pem(private=True).decode()
    loaded, algorithm = load_private_key(pem, None)
    assert algorithm == ("ES256" if kind == "EC" else "RS256") and loaded.is_private
    assert load_private_key(pem, "PS256")[1] == "PS256"


def test_a_public_key_or_junk_is_no_private_key():
    """A public key's PEM, or text that is no key: refused, saying which."""
    public = ECKey.generate_key("P-256").as_pem(private=False).decode()
    with pytest.raises(AuthorizationError, match="the private key given is a public key"):
        load_private_key(public, None)
    with pytest.raises(AuthorizationError, match="the private key is not an EC or RSA key in PEM form"):
        load_private_key("not a key", None)


def test_a_stored_client_is_read_back_and_an_unreadable_one_is_none():
    """``ClientInfo.from_store``: what ``to_store`` wrote gives the same client, unknown fields are
    left out; an entry without a string ``client_id`` is no client."""
    client = ClientInfo("svc", "s", "client_secret_post", "http://127.0.0.1:1/cb", "dynamic")
    assert ClientInfo.from_store({**client.to_store(), "extra": 1}) == client
    assert ClientInfo.from_store({"client_id": "only"}) == ClientInfo("only")
    assert ClientInfo.from_store({"client_id": 5}) is None
    assert ClientInfo.from_store({}) is None


def test_a_grant_request_forms_its_grant_and_asks_the_issuers_token_endpoint(endpoint):
    """``GrantRequest.form``: the grant type, its fields, the resource (RFC 8707) and the scopes when
    there are any; ``token`` posts it to the token endpoint with the issuer as the assertion's audience."""
    key = ECKey.generate_key("P-256")
    with AuthHTTP("srv", endpoint.url, deadline=time.monotonic() + T) as http_:
        discovered = Discovered("https://mcp/r", AuthServer("https://issuer.example"))
        request = GrantRequest("srv", http_, discovered, ("a", "b"), endpoint.url, None)
        form = request.form("client_credentials", audience="x")
        assert form == {
            "grant_type": "client_credentials",
            "audience": "x",
            "resource": "https://mcp/r",
            "scope": "a b",
        }
        bare = GrantRequest("srv", http_, discovered, (), endpoint.url, None)
        assert bare.form("refresh_token", refresh_token="rt") == {
            "grant_type": "refresh_token",
            "refresh_token": "rt",
            "resource": "https://mcp/r",
        }
        assert (
            request.token(ClientInfo("svc", None, "private_key_jwt"), form, private_key=key, algorithm="ES256") == TOKEN
        )
    (seen,) = endpoint.seen
    assert jwt.decode(_form(seen)["client_assertion"], key).claims["aud"] == "https://issuer.example"
    assert _form(seen)["scope"] == "a b"


def test_the_algorithm_asked_for_is_the_one_signed_with_and_a_key_object_defaults_to_rs256(endpoint):
    """An RSA key as PEM with ``algorithm="PS256"`` signs with PS256 (not the key's default, RS256); a
    key passed as a joserfc object with no algorithm signs with RS256."""
    key = RSAKey.generate_key(2048)
    client = ClientInfo("svc", None, "private_key_jwt")
    _request(endpoint, client, private_key=key.as_pem(private=True).decode(), algorithm="PS256")
    _request(endpoint, client, private_key=key)
    assertions = [_form(seen)["client_assertion"] for seen in endpoint.seen]
    algorithms = [jwt.decode(a, key, algorithms=["PS256", "RS256"]).header["alg"] for a in assertions]
    assert algorithms == ["PS256", "RS256"]


@pytest.mark.parametrize("expires_in", [1, 0.5])
def test_a_lifetime_of_a_second_or_less_is_an_expiry(expires_in):
    """Any positive ``expires_in``, a second or half of one, gives the record an expiry: such a token
    is refreshed, not sent for ever."""
    before = time.time()
    record = _bare_record({"access_token": "at", "expires_in": expires_in})
    assert record["expires_at"] is not None and before + expires_in <= record["expires_at"] <= time.time() + expires_in
