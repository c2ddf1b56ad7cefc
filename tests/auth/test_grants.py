"""The grants that need nobody (MCP's authorization extensions), and the person's side of a login."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import ECKey

import mcpsync
from mcpsync import AuthorizationError, ClientCredentials, EnterpriseAuth, WorkloadIdentity
from mcpsync._auth import browser
from mcpsync._auth.browser import LoopbackReceiver
from tests.oauth_server import OAuthTestServer

T = 20


def _keys() -> tuple[str, str]:
    key = ECKey.generate_key("P-256")
    return key.as_pem(private=True).decode(), key.as_pem(private=False).decode()


def grants(server: OAuthTestServer) -> list[dict[str, Any]]:
    return [r["form"] for r in server.seen if r["path"].endswith("/token")]


def test_client_credentials_with_a_secret_needs_no_person_and_no_registration():
    with OAuthTestServer(clients={"svc": {"secret": "s"}}, challenge_scope="read") as server:
        with mcpsync.connect(server.url, auth=ClientCredentials("svc", "s"), timeout=T) as client:
            assert client.call_tool("echo", {"text": "m2m"}, timeout=T).text == "m2m"
        (form,) = grants(server)
        assert form["grant_type"] == "client_credentials" and form["resource"] == server.url
        assert form["scope"] == "read"  # offline_access is for people: a client can always ask again
        assert server.requests_to("/authorize") == [] and server.requests_to("/register") == []
        assert server.requests_to("/token")[0]["authorization"].startswith("Basic ")


def test_client_credentials_with_private_key_jwt():
    private, public = _keys()
    with OAuthTestServer(clients={"svc": {"public_key": public}}) as server:
        with mcpsync.connect(server.url, auth=ClientCredentials("svc", private_key=private), timeout=T) as client:
            client.list_tools(timeout=T)
        (form,) = grants(server)
        assert "client_assertion" in form and "client_secret" not in form


@pytest.mark.parametrize("issuer_path", ["", "/tenant/a"])
def test_a_private_key_jwt_assertion_is_addressed_to_the_issuer_not_the_token_endpoint(issuer_path):
    """An authorization server that takes only its issuer identifier as the client assertion's
    audience (RFC 7523bis, as the conformance suite's does) gets it: the token endpoint's URL would
    let an assertion be replayed at whatever endpoint a server's metadata names."""
    private, public = _keys()
    with OAuthTestServer(clients={"svc": {"public_key": public}}, issuer_path=issuer_path) as server:
        with mcpsync.connect(server.url, auth=ClientCredentials("svc", private_key=private), timeout=T) as client:
            client.list_tools(timeout=T)
        (form,) = grants(server)
        claims = jwt.decode(form["client_assertion"], ECKey.import_key(public)).claims
        assert claims["aud"] == server.issuer and claims["iss"] == claims["sub"] == "svc"


def test_client_credentials_steps_up_by_asking_for_the_union_of_the_scopes():
    with OAuthTestServer(clients={"svc": {"secret": "s"}}, challenge_scope="read") as server:
        with mcpsync.connect(server.url, auth=ClientCredentials("svc", "s"), timeout=T) as client:
            assert client.call_tool("add", {"a": 2, "b": 3}, timeout=T).structured_content == {"sum": 5}
        scopes = [set(f["scope"].split()) for f in grants(server)]
        assert scopes == [{"read"}, {"read", "write"}]


def test_a_token_refused_right_after_it_was_issued_is_not_fetched_again_and_again():
    with OAuthTestServer(clients={"svc": {"secret": "s"}}) as server:
        original = server.issue  # its tokens are for a resource the MCP server does not take

        def wrong_resource(*args: Any, **kwargs: Any) -> dict[str, Any]:
            answer = original(*args, **kwargs)
            server.access_tokens[answer["access_token"]]["resource"] = "https://elsewhere.example"
            return answer

        server.issue = wrong_resource  # type: ignore[method-assign]
        with pytest.raises(AuthorizationError, match="not tried again"):
            mcpsync.connect(server.url, auth=ClientCredentials("svc", "s"), timeout=T)
        assert len(grants(server)) == 1


def test_client_credentials_need_a_secret_or_a_key():
    with pytest.raises(AuthorizationError, match="client_secret or a private_key"):
        ClientCredentials("svc")


def test_workload_identity_sends_the_platforms_assertion_with_the_client_id(tmp_path):
    from joserfc import jwt
    from joserfc.jwk import ECKey

    private, public = _keys()
    key = ECKey.import_key(private)
    with OAuthTestServer(trusted_assertion_keys={"platform": public}) as server:
        issued: list[str] = []

        def assertion() -> str:
            now = int(time.time())
            claims = {"iss": "platform", "sub": "workload-7", "aud": server.issuer, "iat": now, "exp": now + 60}
            issued.append(jwt.encode({"alg": "ES256"}, claims, key))
            return issued[-1]

        with mcpsync.connect(server.url, auth=WorkloadIdentity("wl-client", assertion), timeout=T) as client:
            client.list_tools(timeout=T)
        (form,) = grants(server)
        assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
        assert form["assertion"] == issued[0] and form["client_id"] == "wl-client" and form["resource"] == server.url
        assert server.requests_to("/register") == [] and server.requests_to("/authorize") == []
        # The same from a file the platform keeps fresh.
        token_file = tmp_path / "token"
        token_file.write_text(assertion() + "\n")
        with mcpsync.connect(server.url, auth=WorkloadIdentity("wl-client", str(token_file)), timeout=T) as client:
            client.list_tools(timeout=T)
        assert grants(server)[-1]["assertion"] == issued[-1]


def test_a_refused_workload_assertion_is_final():
    with OAuthTestServer() as server:
        with pytest.raises(AuthorizationError, match="refused the urn:ietf:params:oauth:grant-type:jwt-bearer grant"):
            mcpsync.connect(server.url, auth=WorkloadIdentity("wl", lambda: "not-a-jwt"), timeout=T)
        assert len(grants(server)) == 1  # no retry, no other grant


def test_enterprise_auth_exchanges_the_id_token_for_an_id_jag_then_uses_it_as_a_jwt_bearer_grant():
    with OAuthTestServer(idp_id_tokens=("id-token-of-alice",), clients={"corp": {"secret": "c"}}) as server:
        auth = EnterpriseAuth(
            id_token="id-token-of-alice",
            idp_token_endpoint=server.base + "/idp/token",
            idp_client_id="idp-client",
            client_id="corp",
            client_secret="c",
        )
        with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
            assert client.call_tool("echo", {"text": "sso"}, timeout=T).text == "sso"
        exchange = server.requests_to("/idp/token")[0]["form"]
        assert exchange["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange"
        assert exchange["requested_token_type"] == "urn:ietf:params:oauth:token-type:id-jag"
        assert exchange["audience"] == server.issuer and exchange["resource"] == server.url
        assert exchange["subject_token"] == "id-token-of-alice"
        assert exchange["subject_token_type"] == "urn:ietf:params:oauth:token-type:id_token"
        grant = server.requests_to("/token")[0]["form"]
        assert (
            grant["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" and grant["assertion"].count(".") == 2
        )


def test_enterprise_auth_refused_by_the_identity_provider_says_so():
    with OAuthTestServer(idp_id_tokens=("good",), clients={"corp": {"secret": "c"}}) as server:
        auth = EnterpriseAuth(
            id_token="stale", idp_token_endpoint=server.base + "/idp/token", idp_client_id="i", client_id="corp"
        )
        with pytest.raises(AuthorizationError, match=r"/idp/token refused the .*token-exchange grant"):
            mcpsync.connect(server.url, auth=auth, timeout=T)
        assert server.requests_to("/token") == []


# -- the person's side -------------------------------------------------------------------------------


def test_the_loopback_receiver_listens_on_127_0_0_1_and_takes_only_its_state():
    with LoopbackReceiver("the-state") as receiver:
        assert receiver.redirect_uri.startswith("http://127.0.0.1:")
        assert receiver.address[0] == "127.0.0.1"
        base = receiver.redirect_uri
        assert requests.get(base + "?code=x&state=other", timeout=5).status_code == 400
        assert requests.get(base.replace("/callback", "/elsewhere"), timeout=5).status_code == 404
        threading.Timer(0.2, lambda: requests.get(base + "?code=c1&state=the-state", timeout=5)).start()
        got = receiver.wait(10, "s")
        assert "code=c1" in got and "state=the-state" in got
        assert requests.get(base + "?code=c2&state=the-state", timeout=5).status_code == 400  # one callback only


def test_the_loopback_receivers_wait_is_bounded():
    with LoopbackReceiver("s") as receiver:
        started = time.monotonic()
        with pytest.raises(mcpsync.AuthorizationRequired, match=r"no login within 0\.3s"):
            receiver.wait(0.3, "srv")
        assert time.monotonic() - started < 5


def test_without_a_browser_the_person_pastes_the_address(monkeypatch, capsys):
    monkeypatch.setattr(browser, "in_notebook", lambda: False)
    monkeypatch.setattr(browser, "_browser_available", lambda: False)
    with OAuthTestServer() as server:
        pasted: list[str] = []

        def person(receiver: LoopbackReceiver, timeout: float, name: str) -> str:
            url = capsys.readouterr().err.split("open this link in a browser:\n  ", 1)[1].split("\n", 1)[0]
            pasted.append(server.approve(url))
            return pasted[-1]

        monkeypatch.setattr(browser, "_callback_or_line", person)
        auth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore(), interactive=True)
        with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
            assert client.call_tool("echo", {"text": "pasted"}, timeout=T).text == "pasted"
        assert len(pasted) == 1


def test_with_a_browser_the_link_is_opened_and_printed_and_the_redirect_comes_to_the_receiver(monkeypatch, capsys):
    monkeypatch.setattr(browser, "in_notebook", lambda: False)
    monkeypatch.setattr(browser, "_browser_available", lambda: True)
    with OAuthTestServer() as server:

        def open_browser(url: str) -> bool:
            def browse() -> None:
                requests.get(server.approve(url), timeout=5)  # the browser follows the redirect to us

            threading.Thread(target=browse).start()
            return True

        monkeypatch.setattr(browser.webbrowser, "open", open_browser)
        auth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore(), interactive=True)
        with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
            assert client.call_tool("echo", {"text": "browsed"}, timeout=T).text == "browsed"
        assert "Opened a browser to log in" in capsys.readouterr().err


def test_in_a_notebook_the_link_is_shown_and_the_redirect_comes_to_the_receiver(monkeypatch, capsys):
    import IPython.display

    shown: list[str] = []
    monkeypatch.setattr(browser, "in_notebook", lambda: True)
    monkeypatch.setattr(
        IPython.display, "display", lambda item: shown.append(item.data) if hasattr(item, "data") else None
    )
    with OAuthTestServer() as server:

        def click_later() -> None:
            for _ in range(200):  # until the link is shown
                if shown:
                    break
                time.sleep(0.02)
            link = shown[0].split('href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
            requests.get(server.approve(link), timeout=5)

        clicker = threading.Thread(target=click_later)
        clicker.start()
        auth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore(), interactive=True)
        with mcpsync.connect(server.url, auth=auth, timeout=T) as client:
            assert client.call_tool("echo", {"text": "clicked"}, timeout=T).text == "clicked"
        clicker.join(T)
        assert 'target="_blank"' in shown[0] and "Log in to" in shown[0]


def test_ctrl_c_while_the_login_waits_for_the_person_ends_it_at_once(monkeypatch):
    from tests.helpers import ctrl_c_after

    monkeypatch.setattr(browser, "in_notebook", lambda: False)
    monkeypatch.setattr(browser, "_browser_available", lambda: True)
    opened = threading.Event()  # the login page handed to a browser nobody uses: the wait for the person begins
    monkeypatch.setattr(browser.webbrowser, "open", lambda url: opened.set() or True)
    with OAuthTestServer() as server:
        auth = mcpsync.OAuth(store=mcpsync.MemoryTokenStore(), interactive=True, login_timeout=60)
        started = time.monotonic()
        # Once the login waits (a fixed 0.5 s was outrun on a busy machine: the Ctrl-C came during the
        # discovery before it, and the 60 s login wait followed).
        with ctrl_c_after(0.2, when=opened.is_set):
            mcpsync.connect(server.url, auth=auth, timeout=T)
        assert time.monotonic() - started < 5
        assert server.requests_to("/token") == []


def test_client_credentials_take_the_private_key_from_a_pem_file(tmp_path):
    private, public = _keys()
    key_file = tmp_path / "key.pem"
    key_file.write_text(private)
    with OAuthTestServer(clients={"svc": {"public_key": public}}) as server:
        with mcpsync.connect(server.url, auth=ClientCredentials("svc", private_key=str(key_file)), timeout=T) as client:
            client.list_tools(timeout=T)
        assert "client_assertion" in grants(server)[0]
    with pytest.raises(AuthorizationError, match="cannot be read"):
        ClientCredentials("svc", private_key=str(tmp_path / "missing.pem"))
