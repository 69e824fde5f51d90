"""Sets up a running `huddle serve` for a push benchmark: registers a signing key (admin token `bench`), creates
devices with the bench app, and writes into WORK what the load tools need: `jwt` (a provider token), `device`
(the first device's token), `devices` (every device's token, one a line) and `secrets` (their secrets, in
the same order, for the device API and its streams).

    python3 Tools/bench/bench_setup.py URL WORK [--devices N]

WORK must hold `key.p8` (openssl ecparam -name prime256v1 -genkey | openssl pkcs8 -topk8 -nocrypt).
"""
import argparse
import json
import pathlib
import sys
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "Tests" / "e2e"))
from jwt_tokens import token  # noqa: E402

KEY_ID, TEAM_ID, TOPIC = "BENCH00001", "BENCHTEAM1", "com.example.bench"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("work", type=pathlib.Path)
    parser.add_argument("--devices", type=int, default=1)
    arguments = parser.parse_args()

    def call(method, path, body, bearer=None):
        headers = {"authorization": f"Bearer {bearer}"} if bearer else {}
        request = urllib.request.Request(arguments.url + path, data=json.dumps(body).encode(), method=method, headers=headers)
        return json.load(urllib.request.urlopen(request))

    p8 = (arguments.work / "key.p8").read_text()
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


if __name__ == "__main__":
    main()
