"""server/client_redaction.py on its own: what each kind of message becomes once a `${VAR}`
value and a credential variable are known (the whole server: test_server_path_secrets.py)."""

from __future__ import annotations

from holodeck_lsp.server.client_redaction import ClientRedaction

TENANT = "acme tenant-ø5"
KEY = "sk-cred-0a1b2c3d"
FOLDER = "file:///w/suite/"


def redaction() -> ClientRedaction:
    known = ClientRedaction(env={"TENANT": TENANT, "OPENAI_API_KEY": KEY, "SHORT": "ab"})
    known.learn(["test_cases_file: cases_${TENANT}.yaml\nname: ${SHORT}\n"])
    return known


def test_values_become_their_reference_and_credentials_stars() -> None:
    known = redaction()
    hover = {"contents": {"value": f"Defined in `tools_{TENANT}.py`; key {KEY}; ab"}}
    assert known.data(hover) == {
        "contents": {"value": "Defined in `tools_${TENANT}.py`; key ***; ab"}
    }


def test_locations_in_a_secret_file_are_left_out_and_the_client_s_own_uris_kept() -> None:
    known = redaction()
    secret_uri = FOLDER + "cases_acme%20tenant-%C3%B85.yaml"
    opened = FOLDER + "agent.yaml"
    locations = [{"uri": secret_uri, "range": {}}, {"uri": opened, "range": {}}]
    symbols = [{"name": "c1", "location": {"uri": secret_uri}}]
    assert known.data({"id": 1, "result": locations}) == {"id": 1, "result": locations[1:]}
    assert known.data({"id": 2, "result": symbols}) == {"id": 2, "result": []}
    assert known.data({"id": 3, "result": locations[0]}) == {"id": 3, "result": None}
    kept = known.data({"params": {"uri": secret_uri}}, keep=lambda uri: uri == secret_uri)
    assert kept == {"params": {"uri": secret_uri}}


def test_nothing_known_nothing_changed() -> None:
    empty = ClientRedaction(env={})
    empty.learn(["name: plain\n"])
    message = {"result": {"data": [1, 2, 3]}, "text": "plain"}
    assert not empty and empty.data(message) is message
