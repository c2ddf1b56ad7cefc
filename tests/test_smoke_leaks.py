import mcpsync
from mcpsync.testing import server_config


def test_connect_and_close_leaves_nothing():
    with mcpsync.connect(server_config()) as client:
        assert client.call_tool("echo", {"text": "x"}).text == "x"
