"""Sets up a running `huddle serve` for a push benchmark: registers a signing key (admin token `bench`), creates
devices with the bench app, and writes into WORK what the load tools need: `jwt` (a provider token), `device`
(the first device's token), `devices` (every device's token, one a line), `secrets` (their secrets, in the
same order, for the device API and its streams) and `payload.json`.

    python3 Tools/bench/bench_setup.py URL WORK [--devices N] [--key PATH]

The key is `--key` (default WORK/key.p8), made when it does not exist yet: servers that share one key accept
one provider token. `payload.json` is the 544-byte push the tooling baselines used, unless WORK has one
already (a benchmark of another payload writes its own first).
"""
import argparse
import json
import pathlib
import sys
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "Tests" / "e2e"))
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from jwt_tokens import token  # noqa: E402

KEY_ID, TEAM_ID, TOPIC = "BENCH00001", "BENCHTEAM1", "com.example.bench"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("work", type=pathlib.Path)
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--key", type=pathlib.Path)
    arguments = parser.parse_args()
    key = arguments.key or arguments.work / "key.p8"
    if not key.exists():
        key.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    payload = arguments.work / "payload.json"
    if not payload.exists():
        payload.write_text(baseline_payload())

    def call(method, path, body, bearer=None):
        headers = {"authorization": f"Bearer {bearer}"} if bearer else {}
        request = urllib.request.Request(arguments.url + path, data=json.dumps(body).encode(), method=method, headers=headers)
        return json.load(urllib.request.urlopen(request))

    p8 = key.read_text()
    call("PUT", f"/v1/admin/keys/{KEY_ID}", {"teamID": TEAM_ID, "publicKey": p8, "topics": []}, "bench")
    tokens, secrets = [], []
    for index in range(arguments.devices):
        device = call("POST", "/v1/devices", {"name": f"bench {index}"})
        call("PUT", f"/v1/devices/{device['token']}/apps/{TOPIC}",
             {"categories": [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]}, device["secret"])
        tokens.append(device["token"])
        secrets.append(device["secret"])
    (arguments.work / "devices").write_text("\n".join(tokens) + "\n")
    (arguments.work / "secrets").write_text("\n".join(secrets) + "\n")
    (arguments.work / "device").write_text(tokens[0])
    (arguments.work / "jwt").write_text(token(p8, KEY_ID, TEAM_ID))


def baseline_payload():
    """A 544-byte payload, the size the tooling baselines used."""
    aps = {"alert": {"title": "Notifications Team", "body": "Kritarth: the pizza is here, come to the lab on the second floor",
                     "summary-arg": "Kritarth"}, "thread-id": "team", "category": "msg", "sound": "default"}
    text = json.dumps({"aps": aps, "conversation": {"id": 51413, "kind": "group"}})
    return text[:-1] + ', "padding": "' + "x" * (544 - len(text) - 15) + '"}'


if __name__ == "__main__":
    main()
